from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from neomodel import db
from neo4j.exceptions import ServiceUnavailable

from memory.embeddings import embedding_dimensions
from memory.selectors import unowned_counts
from portal import graphdb
from portal.tasks import graph_ping


class Command(BaseCommand):
    help = "Report the Neo4j server, node counts per label, indexes, and (with --worker) a worker's view."

    def add_arguments(self, parser):
        parser.add_argument("--worker", action="store_true", help="also ask a Celery worker to reach Neo4j")

    def handle(self, *args, **options):
        try:
            info = graphdb.server_info()
        except ServiceUnavailable as exc:
            raise CommandError(f"Neo4j at {db.url or settings.NEO4J_URL} is unavailable: {exc}")
        self.stdout.write(f"Neo4j {info['name']} {info['version']} {info['edition']} at {db.url}")
        for row in graphdb.rows("MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n ORDER BY label"):
            self.stdout.write(f"  {row['label']:<16} {row['n']:>10}")
        unowned = unowned_counts()
        if unowned:
            self.stdout.write(self.style.WARNING("Memory nodes without an owner (user_id); adopt_nam owns them:"))
            for label, count in unowned.items():
                self.stdout.write(f"  {label:<16} {count:>10}")
        indexes = graphdb.rows("SHOW INDEXES YIELD name, type, state RETURN name, type, state ORDER BY name")
        self.stdout.write(f"{len(indexes)} indexes:")
        for index in indexes:
            self.stdout.write(f"  {index['name']:<48} {index['type']:<10} {index['state']}")
        mismatches = graphdb.vector_dimension_mismatches(embedding_dimensions())
        if mismatches:
            self.stdout.write(self.style.ERROR(f"Vector index dimension mismatch: {', '.join(mismatches)}"))
        if options["worker"]:
            seen = graph_ping.delay().get(timeout=30)
            self.stdout.write(f"A worker reaches Neo4j {seen['version']} {seen['edition']}")
