import io

from django.core.management.base import BaseCommand
from neomodel import db

from memory import cypher as memory_cypher
from memory.embeddings import embedding_dimensions
from portal import graphdb
from review import cypher as review_cypher

SCHEMAS = [memory_cypher.SCHEMA, review_cypher.SCHEMA]


class Command(BaseCommand):
    help = "Install the graph's constraints and indexes (idempotent)."

    def handle(self, *args, **options):
        import knowledge.graph  # noqa: F401
        import memory.graph  # noqa: F401  registers the node classes

        graphdb.check_vector_dimensions(embedding_dimensions())
        for statement in memory_cypher.SCHEMA_REPLACED:
            db.cypher_query(statement)
        db.install_all_labels(stdout=self.stdout if options["verbosity"] > 1 else io.StringIO())
        for statement in (s for schema in SCHEMAS for s in schema):
            db.cypher_query(statement)
        count = graphdb.scalar("SHOW INDEXES YIELD name RETURN count(*) AS indexes")
        self.stdout.write(self.style.SUCCESS(f"Graph schema installed: {count} indexes."))

