"""Delete what is past retention, as the Beat task does, or with --dry-run say what the next run deletes."""

import json
from datetime import datetime

from django.core.management.base import BaseCommand, CommandError

from governance import selectors, services


class Command(BaseCommand):
    help = ("Delete memory past its retention for every person it applies to (the Beat task's work, run here "
            "at once); --dry-run prints what the next run would delete, by person and kind, and deletes nothing.")

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="count what would be deleted; delete nothing")
        parser.add_argument("--at", help="as if it were this moment (ISO 8601 with a time zone); default now")
        parser.add_argument("--json", action="store_true", dest="as_json", help="one JSON object per person")

    def handle(self, *args, dry_run, at, as_json, **options):
        moment = self._moment(at)
        total = 0
        for subject in selectors.retention_subjects().select_related("account"):
            if dry_run:
                counts = selectors.retention_expired(subject=subject, at=moment)
            else:
                counts = services.retention_apply(subject=subject, at=moment, actor="retention_apply command").get(
                    "deleted", {})
            if not sum(counts.values()):
                continue
            total += sum(counts.values())
            who = subject.account.email or subject.user_id
            if as_json:
                self.stdout.write(json.dumps({"person": who, "user_id": subject.user_id,
                                         "would_delete" if dry_run else "deleted": counts}))
            else:
                self.stdout.write(f"{who}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n))
        verb = "would be deleted" if dry_run else "deleted"
        self.stdout.write(json.dumps({"total": total, "dry_run": dry_run}) if as_json else f"{total} items {verb}.")

    @staticmethod
    def _moment(at: str | None) -> datetime | None:
        if at is None:
            return None
        try:
            moment = datetime.fromisoformat(at)
        except ValueError as exc:
            raise CommandError(f"--at: {exc}")
        if moment.tzinfo is None:
            raise CommandError("--at needs a time zone, e.g. 2026-12-01T00:00:00+00:00")
        return moment

