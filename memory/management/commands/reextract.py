from django.core.management.base import BaseCommand

from memory.ingest import messages_reextract


class Command(BaseCommand):
    help = ("Queue extraction again for messages (by default those that failed or are still pending). Each is "
            "marked pending first, its place in the extraction outbox: with the broker down the Beat task "
            "queues it once the broker is back.")

    def add_arguments(self, parser):
        parser.add_argument("--user", help="only this subject's messages (their public user_id)")
        parser.add_argument("--status", default="failed,pending",
                            help="comma-separated statuses to re-extract (pending, done, failed, skipped)")

    def handle(self, *args, **options):
        statuses = [s.strip() for s in options["status"].split(",") if s.strip()]
        queued, marked = messages_reextract(user_id=options["user"], statuses=statuses)
        self.stdout.write(f"Queued {queued} of {marked} messages for extraction"
                          + ("." if queued == marked else "; the rest are pending until the broker is back."))
