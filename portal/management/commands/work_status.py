import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from portal.outbox import work_status


class Command(BaseCommand):
    help = ("Report the accepted work still waiting (extractions, exports, erasures) with counts and ages; "
            "exit 1 when any has waited past the threshold, 2 when a store cannot tell.")

    def add_arguments(self, parser):
        parser.add_argument("--stuck-seconds", type=float, default=settings.WORK_STUCK_SECONDS,
                            help="waiting longer than this is stuck (default WORK_STUCK_SECONDS, %(default)s)")
        parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")

    def handle(self, *args, **options):
        threshold = options["stuck_seconds"]
        status = work_status(stuck_seconds=threshold)
        if options["json"]:
            self.stdout.write(json.dumps({"stuck_seconds": threshold, "work": status}))
        else:
            for name, counts in status.items():
                if "error" in counts:
                    self.stdout.write(f"{name:<12} unknown: {counts['error']}")
                    continue
                oldest = "-" if counts["oldest_seconds"] is None else f"{counts['oldest_seconds']} s"
                self.stdout.write(f"{name:<12} {counts['waiting']:>6} waiting  {counts['stuck']:>6} stuck  "
                                  f"oldest {oldest}")
        unknown = [name for name, counts in status.items() if "error" in counts]
        stuck = {name: counts["stuck"] for name, counts in status.items() if counts.get("stuck")}
        if unknown:
            raise CommandError(f"Cannot count {', '.join(unknown)}: its store does not answer.", returncode=2)
        if stuck:
            raise CommandError("Stuck (waiting over %g s): %s." % (
                threshold, ", ".join(f"{count} {name}" for name, count in stuck.items())), returncode=1)
