from django.core.management.base import BaseCommand

from knowledge.services import knowledge_demo_load


class Command(BaseCommand):
    help = "Load the demo knowledge graph (fictional companies' filings) and its retrieval profile (idempotent)."

    def handle(self, *args, **options):
        count, profile = knowledge_demo_load()
        self.stdout.write(self.style.SUCCESS(f"Demo knowledge loaded: {count} chunks, profile {profile.name!r}."))
