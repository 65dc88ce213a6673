from django.core.management.base import BaseCommand
from neomodel import db

from portal.outbox import work_enqueue

SELECT = """
MATCH (m:Message)
WHERE ($user_id IS NULL OR m.user_id = $user_id) AND m.extraction_status IN $statuses
RETURN m.uid, m.user_id
"""
RESET = "UNWIND $uids AS uid MATCH (m:Message {uid: uid}) SET m.extraction_status = 'pending', m.extraction_error = null"


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
        rows, _ = db.cypher_query(SELECT, {"user_id": options["user"], "statuses": statuses})
        db.cypher_query(RESET, {"uids": [uid for uid, _ in rows]})
        queued = work_enqueue(kind="extractions", entries=[(uid, (uid, user_id)) for uid, user_id in rows])
        self.stdout.write(f"Queued {queued} of {len(rows)} messages for extraction"
                          + ("." if queued == len(rows) else "; the rest are pending until the broker is back."))
