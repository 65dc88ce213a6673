from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from neomodel import db
from neo4j.exceptions import ServiceUnavailable

from memory.embeddings import embedding_dimensions
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
        rows, _ = db.cypher_query("MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) ORDER BY label")
        for label, count in rows:
            self.stdout.write(f"  {label:<16} {count:>10}")
        rows, _ = db.cypher_query("SHOW INDEXES YIELD name, type, state RETURN name, type, state ORDER BY name")
        self.stdout.write(f"{len(rows)} indexes:")
        for name, kind, state in rows:
            self.stdout.write(f"  {name:<48} {kind:<10} {state}")
        mismatches = graphdb.vector_dimension_mismatches(embedding_dimensions())
        if mismatches:
            self.stdout.write(self.style.ERROR(f"Vector index dimension mismatch: {', '.join(mismatches)}"))
        if options["worker"]:
            seen = graph_ping.delay().get(timeout=30)
            self.stdout.write(f"A worker reaches Neo4j {seen['version']} {seen['edition']}")
