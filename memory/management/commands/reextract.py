from django.core.management.base import BaseCommand
from neomodel import db

from memory.tasks import message_extract

SELECT = """
MATCH (m:Message)
WHERE ($user_id IS NULL OR m.user_id = $user_id) AND m.extraction_status IN $statuses
RETURN m.uid, m.user_id
"""
RESET = "UNWIND $uids AS uid MATCH (m:Message {uid: uid}) SET m.extraction_status = 'pending', m.extraction_error = null"


class Command(BaseCommand):
    help = "Queue extraction again for messages (by default those that failed or are still pending)."

    def add_arguments(self, parser):
        parser.add_argument("--user", help="only this subject's messages (their public user_id)")
        parser.add_argument("--status", default="failed,pending",
                            help="comma-separated statuses to re-extract (pending, done, failed, skipped)")

    def handle(self, *args, **options):
        statuses = [s.strip() for s in options["status"].split(",") if s.strip()]
        rows, _ = db.cypher_query(SELECT, {"user_id": options["user"], "statuses": statuses})
        db.cypher_query(RESET, {"uids": [uid for uid, _ in rows]})
        for uid, user_id in rows:
            message_extract.delay(uid, user_id)
        self.stdout.write(f"Queued {len(rows)} messages for extraction.")
