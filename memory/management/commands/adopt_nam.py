import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memory.services.adoption import nam_adopt, subject_claim
from portal.exceptions import ApplicationError


class Command(BaseCommand):
    help = ("Adopt the memory graph neo4j-agent-memory wrote: owners, uids, per-person copies of shared nodes, "
            "subjects; --dry-run reports what it would do. --claim gives an adopted subject to an account.")

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="report what adoption would do; write nothing")
        parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
        parser.add_argument("--claim", metavar="USER_ID", help="the adopted subject to give to --account")
        parser.add_argument("--account", metavar="EMAIL", help="the signed-up account that claims it")

    def handle(self, *args, **options):
        if options["claim"]:
            return self._claim(options["claim"], options["account"])
        report = nam_adopt(dry_run=options["dry_run"])
        if options["json"]:
            self.stdout.write(json.dumps(report, sort_keys=True))
            return
        self.stdout.write("Would adopt (dry run):" if report["dry_run"] else "Adopted:")
        for subject in report["subjects"]:
            made = "new subject" if subject["new"] else "subject"
            self.stdout.write(f"  NAM user {subject['identifier']!r} -> {made} {subject['user_id']}")
        for label, by_person in sorted(report["adopted"].items()):
            people = ", ".join(f"{user_id}: {count}" for user_id, count in sorted(by_person.items()))
            self.stdout.write(f"  {label:<15} {sum(by_person.values()):>6}  ({people})")
        for label, count in report["copies"].items():
            if count:
                self.stdout.write(f"  {count} per-person copies of shared {label} nodes")
        self.stdout.write(f"  {report['embeddings_recomputed']} embeddings recomputed for the configured embedder")
        if report["unowned"]:
            self.stdout.write(self.style.WARNING(f"Cannot own {len(report['unowned'])} (left as they are):"))
            for row in report["unowned"]:
                self.stdout.write(f"  {row['label']} {row['nam_id'] or ''}: {row['reason']}")
        for label, count in report["not_memory"].items():
            self.stdout.write(f"  not memory, left alone: {label} {count}")

    def _claim(self, user_id: str, email: str | None):
        account = get_user_model().objects.filter(email__iexact=email or "").first()
        if account is None:
            raise CommandError("--claim needs --account EMAIL of an existing account.")
        try:
            subject = subject_claim(user_id=user_id, account=account, actor="adopt_nam --claim")
        except ApplicationError as exc:
            raise CommandError(str(exc))
        self.stdout.write(f"Subject {subject.user_id} now belongs to {account.email}.")
