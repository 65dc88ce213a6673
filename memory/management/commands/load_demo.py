from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from knowledge.models import RetrievalProfile
from memory import ingest, services
from memory.models import SCOPES, Agent

DEMO_USERS = [
    {"email": "demo@example.com", "password": "demo-password", "is_staff": False},
    {"email": "admin@example.com", "password": "admin-password", "is_staff": True},
]
DEMO_AGENT = "demo-assistant"
DEMO_TOKEN_NAME = "make run demo"
# Two sessions with one assistant: what the demo user said, as an agent would hand it back.
DEMO_CONVERSATIONS = {
    "demo-monday": [
        ("user", "Hi! I just moved to Lisbon. I work at Northwind Logistics now."),
        ("assistant", "Welcome to Lisbon! How is the new role at Northwind going?"),
        ("user", "Good so far. I prefer window seats when I fly."),
        ("assistant", "Noted: window seats from now on."),
    ],
    "demo-tuesday": [
        ("user", "Can you book me a flight to Porto on Friday?"),
        ("assistant", "Booked: Friday 9:05 to Porto, window seat, vegetarian meal requested."),
        ("user", "Thanks. My manager Ana Souza will join me in Porto."),
    ],
}


class Command(BaseCommand):
    help = "Create the demo user, a staff user, a demo agent with a fresh token, and demo memory (idempotent)."

    def handle(self, *args, **options):
        with transaction.atomic():
            users = [self._user(spec) for spec in DEMO_USERS]
            agent, _ = Agent.objects.get_or_create(
                agent_id=DEMO_AGENT, defaults={"name": "Demo assistant", "scopes": list(SCOPES)})
            for token in agent.tokens.filter(name=DEMO_TOKEN_NAME, revoked_at__isnull=True):
                services.agent_token_revoke(token=token)
            _, secret = services.agent_token_issue(agent=agent, name=DEMO_TOKEN_NAME)
            subject = services.subject_get_or_create(user=users[0])
            if not agent.grants.filter(subject=subject, revoked_at__isnull=True).exists():
                services.grant_create(subject=subject, agent=agent, actor=users[0])
            for profile in RetrievalProfile.objects.all():
                profile.agents.add(agent)
        self._memory(subject, agent)
        self.stdout.write(f"Demo agent '{DEMO_AGENT}' token (shown once, revoked at the next load): {secret}")
        self.stdout.write(f"Demo user's public id: {subject.user_id}")

    def _user(self, spec):
        User = get_user_model()
        user, created = User.objects.get_or_create(
            username=spec["email"].split("@")[0],
            defaults={"email": spec["email"], "is_staff": spec["is_staff"], "is_superuser": spec["is_staff"]},
        )
        if created:
            user.set_password(spec["password"])
            user.save()
        EmailAddress.objects.update_or_create(user=user, email=spec["email"],
                                              defaults={"verified": True, "primary": True})
        self.stdout.write(f"{'Created' if created else 'Kept'} {spec['email']}")
        return user

    def _memory(self, subject, agent):
        """Append the demo conversations (client ids make it idempotent) and extract them now."""
        stored = 0
        for session_id, turns in DEMO_CONVERSATIONS.items():
            results = services.messages_append(subject=subject, agent=agent, session_id=session_id, messages=[
                {"role": role, "content": content, "client_message_id": f"{session_id}-{i}"}
                for i, (role, content) in enumerate(turns)])
            for result in results:
                if result["stored"]:
                    ingest.message_extract(message_uid=result["uid"], user_id=subject.user_id)
                    stored += 1
        if stored:
            trace = services.trace_start(subject=subject, agent=agent, session_id="demo-tuesday",
                                         task="Book a flight to Porto on Friday")
            services.trace_step_add(subject=subject, trace_uid=trace, thought="Check the user's seat and meal preferences",
                                    action="search_flights", observation="3 flights on Friday", tool_calls=[
                                        {"tool_name": "search_flights", "arguments": {"to": "OPO", "date": "friday"},
                                         "result": {"flights": 3}, "status": "success", "duration_ms": 412.0}])
            services.trace_complete(subject=subject, trace_uid=trace, outcome="Booked 9:05, window seat", success=True)
        self.stdout.write(f"Demo memory: {stored} new messages at {timezone.now():%Y-%m-%d %H:%M}")
