from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

DEMO_USERS = [
    {"email": "demo@example.com", "password": "demo-password", "is_staff": False},
    {"email": "admin@example.com", "password": "admin-password", "is_staff": True},
]


class Command(BaseCommand):
    help = "Create the demo user, a staff user and demo memory (idempotent)."

    @transaction.atomic
    def handle(self, *args, **options):
        User = get_user_model()
        for spec in DEMO_USERS:
            user, created = User.objects.get_or_create(
                username=spec["email"].split("@")[0],
                defaults={"email": spec["email"], "is_staff": spec["is_staff"], "is_superuser": spec["is_staff"]},
            )
            if created:
                user.set_password(spec["password"])
                user.save()
            EmailAddress.objects.update_or_create(
                user=user, email=spec["email"], defaults={"verified": True, "primary": True}
            )
            self.stdout.write(f"{'Created' if created else 'Kept'} {spec['email']}")
