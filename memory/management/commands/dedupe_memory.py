import json

from django.core.management.base import BaseCommand

from memory import ingest


class Command(BaseCommand):
    help = ("Find entities with the same normal name and type, and current preferences with the same topic and "
            "polarity, of one person, and merge them reversibly: entities by SAME_AS (auto, or pending with "
            "--review; a reviewer can undo either), preferences by a supersession --restore takes back.")

    def add_arguments(self, parser):
        parser.add_argument("--user", help="only this subject's memory (their public user_id)")
        parser.add_argument("--review", action="store_true", help="propose entity merges for review instead")
        parser.add_argument("--dry-run", action="store_true", help="list the duplicates, change nothing")
        parser.add_argument("--restore", action="store_true", help="make merged duplicate preferences current again")

    def handle(self, *args, user=None, review=False, dry_run=False, restore=False, **options):
        if restore:
            restored = ingest.preference_duplicates_restore(user_id=user)
            self.stdout.write(json.dumps({"preferences_restored": restored}))
            return
        duplicates = ingest.duplicates_find(user_id=user)
        for owner, canonical, others in duplicates.entities + duplicates.preferences:
            name = canonical.get("name") or canonical.get("preference")
            self.stdout.write(f"{owner}: {name!r} <- {[o.get('name') or o.get('preference') for o in others]}")
        summary = {
            "dry_run": dry_run,
            "entity_groups": len(duplicates.entities), "entity_duplicates": sum(len(o) for *_, o in duplicates.entities),
            "preference_groups": len(duplicates.preferences),
            "preference_duplicates": sum(len(o) for *_, o in duplicates.preferences),
        }
        if not dry_run:
            merged = ingest.duplicates_merge(duplicates=duplicates, review=review)
            summary.update(entities_merged=merged["entities"], preferences_merged=merged["preferences"],
                           entity_merge_status="pending" if review else "auto")
        self.stdout.write(json.dumps(summary))
