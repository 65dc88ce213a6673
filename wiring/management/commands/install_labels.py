import io

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand
from neomodel import db

from memory import cypher as memory_cypher
from memory.cypher.adoption import index_drop
from memory.embeddings import embedding_dimensions
from memory.ingest import message_copies_fill
from memory.services.adoption import vector_index_conflicts
from portal import graphdb
from review import cypher as review_cypher

SCHEMAS = [memory_cypher.SCHEMA, review_cypher.SCHEMA]


class Command(BaseCommand):
    help = ("Install the graph's constraints and indexes (idempotent), and give messages stored before copies "
            "existed their vector's copy in signed bytes. Memory's vector indexes take "
            "neo4j-agent-memory's names, so a NAM agent and the portal share them; one of another size stops "
            "this command with the way forward.")

    def add_arguments(self, parser):
        parser.add_argument("--replace-vector-indexes", action="store_true",
                            help="drop memory's vector indexes of another size (after adopt_nam recomputed the "
                                 "vectors) and build them again for the configured embedder, under the same names")

    def handle(self, *args, **options):
        import knowledge.graph  # noqa: F401
        import memory.graph  # noqa: F401  registers the node classes

        dimensions = embedding_dimensions()
        self._vector_indexes_check(dimensions, replace=options["replace_vector_indexes"])
        for statement in memory_cypher.SCHEMA_REPLACED:
            graphdb.run(statement)
        db.install_all_labels(stdout=self.stdout if options["verbosity"] > 1 else io.StringIO())
        for statement in (s for schema in SCHEMAS for s in schema):
            graphdb.run(statement)
        for statement in memory_cypher.SCHEMA_VECTOR:
            graphdb.run(statement, {"dimensions": dimensions})
        if graphdb.vector_search_filters():
            for statement in memory_cypher.SCHEMA_VECTOR_FILTERED:
                graphdb.run(statement, {"dimensions": embedding_dimensions()})
        count = graphdb.scalar("SHOW INDEXES YIELD name RETURN count(*) AS indexes")
        self.stdout.write(self.style.SUCCESS(f"Graph schema installed: {count} indexes."))
        filled = message_copies_fill()
        if filled:
            self.stdout.write(f"Gave {filled} messages stored before copies existed their vector's copy "
                              "in signed bytes.")

    def _vector_indexes_check(self, dimensions: int, *, replace: bool) -> None:
        """Stop on vector indexes of another size, saying how to go on; drop memory's with --replace-vector-indexes."""
        conflicts = vector_index_conflicts(dimensions=dimensions)
        for index in (c for c in conflicts if c["problem"] == "rename"):
            self.stderr.write(self.style.WARNING(
                f"{index['label']}.{index['property']} already has the vector index {index['name']!r}: the portal "
                f"uses it, but neo4j-agent-memory searches {index['expected']!r} and would find no index. To share "
                f"it, drop {index['name']!r} and run install_labels again (it is built under NAM's name)."))
        foreign = [f"{c['name']} has {c['dimensions']}" for c in conflicts if c["problem"] == "foreign"]
        if foreign:
            raise ImproperlyConfigured(
                f"The configured embedder makes {dimensions}-dimensional vectors but these Neo4j vector indexes "
                f"differ: {', '.join(foreign)}. Set EMBEDDER back, or drop those indexes, run "
                "`manage.py install_labels` and re-embed.")
        resize = [c for c in conflicts if c["problem"] == "resize"]
        listed = ", ".join(f"{c['name']} ({c['label']}.{c['property']}) has {c['dimensions']}" for c in resize)
        if resize and not replace:
            raise ImproperlyConfigured(
                f"Memory's vector indexes are of another size than the configured embedder's {dimensions}: {listed}. "
                "A graph neo4j-agent-memory wrote has them (1536 is its default, OpenAI's). To adopt it: run "
                "`manage.py adopt_nam`, which recomputes every adopted vector with the configured embedder, then "
                "`manage.py install_labels --replace-vector-indexes`, which builds these indexes again at "
                f"{dimensions} under the same names (a NAM agent still running must then use a {dimensions}-dimension "
                "embedder too, or move to the portal's providers). Or keep the indexes and set EMBEDDER to an "
                f"embedder of that size (EMBEDDER=openai with OPENAI_EMBEDDING_DIMENSIONS={resize[0]['dimensions']}).")
        stale = {f"{c['label']}.{c['property']}": c["stale"] for c in resize if c["stale"]}
        if stale:
            raise ImproperlyConfigured(
                f"Not replacing the vector indexes: owned nodes still hold vectors of another size than {dimensions} "
                f"({', '.join(f'{where}: {n}' for where, n in stale.items())}). Run `manage.py adopt_nam` first.")
        for index in resize:
            graphdb.run(index_drop(index["name"]))
            self.stdout.write(f"Dropped {index['name']} ({index['dimensions']} dimensions); built again at {dimensions}.")
