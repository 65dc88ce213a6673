"""The portal's schema and neo4j-agent-memory 0.8.0's (tests/fixtures/nam_schema.json) in one Neo4j, in either order."""

import json
import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from neomodel import db

from memory.cypher import VECTOR_INDEXES
from memory.embeddings import get_embedder
from tests.fixtures.nam import nam_adopt, nam_graph_load

pytestmark = pytest.mark.django_db
NAM_SCHEMA = json.loads((Path(__file__).parent.parent / "fixtures" / "nam_schema.json").read_text())
SCHEMA = ("SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options, owningConstraint WHERE type <> 'LOOKUP' "
          "RETURN name, type, labelsOrTypes AS labels, properties, owningConstraint AS constraint, "
          "options.indexConfig['vector.dimensions'] AS dimensions")


def schema() -> dict:
    found, columns = db.cypher_query(SCHEMA)
    return {row[0]: dict(zip(columns, row)) for row in found}


def shape(index: dict) -> tuple:
    return index["type"], tuple(index["labels"]), tuple(index["properties"]), index["constraint"] is not None


STATEMENT = re.compile(r"CREATE (?:(?P<kind>TEXT|VECTOR|POINT) )?(?P<what>INDEX|CONSTRAINT) (?P<name>\w+) IF NOT EXISTS "
                       r"FOR \(n:(?P<label>\w+)\) (?:ON|REQUIRE) \(?n\.(?P<property>\w+)")


def nam_statements(dimensions: str) -> list[dict]:
    return [{**STATEMENT.match(s).groupdict(), "statement": s} for s in NAM_SCHEMA["statements"][dimensions]]


def names() -> set[str]:
    """Return the names of every index and constraint, as NAM's existence checks read them."""
    return {row[0] for query in ("SHOW INDEXES YIELD name", "SHOW CONSTRAINTS YIELD name")
            for row in db.cypher_query(query)[0]}


def nam_schema_install(dimensions: str) -> None:
    """Run NAM's statements as its SchemaManager does: each only when no index or constraint has its name."""
    for row in nam_statements(dimensions):
        if row["name"] not in names():
            db.cypher_query(row["statement"])


def schema_drop() -> None:
    constraints, _ = db.cypher_query("SHOW CONSTRAINTS YIELD name RETURN name")
    for (name,) in constraints:
        db.cypher_query(f"DROP CONSTRAINT `{name}`")
    for name in schema():
        db.cypher_query(f"DROP INDEX `{name}`")


@pytest.fixture
def portal_schema():
    """Yield the portal's schema as install_labels makes it on an empty schema; afterwards put it back."""
    schema_drop()
    call_command("install_labels", verbosity=0)
    yield schema()
    schema_drop()
    call_command("install_labels", verbosity=0)


def nam_search(text: str) -> list[str]:
    """Run NAM's own message search by vector; return the contents it finds."""
    embedding = get_embedder().embed([text])[0].tolist()
    found, _ = db.cypher_query(NAM_SCHEMA["search_messages_by_embedding"], {
        "limit": 3, "embedding": embedding, "threshold": 0.0})
    return [row[0]["content"] for row in found]


def test_nam_schema_after_the_portals_is_created_and_nams_vector_search_uses_the_shared_index(portal_schema):
    nam_schema_install("384")

    after, present = schema(), names()
    for row in nam_statements("384"):
        kind = row["kind"] or ("RANGE" if row["what"] == "INDEX" else "CONSTRAINT")
        # A range index or constraint the portal has under its own name is the same one for NAM's queries;
        # vector indexes are searched by name, so they must carry NAM's.
        assert row["name"] in present or (kind != "VECTOR" and any(
            (index["labels"], index["properties"]) == ([row["label"]], [row["property"]])
            and (index["type"] == kind or (kind == "CONSTRAINT" and index["constraint"])) for index in after.values())), row
    assert {after[name]["dimensions"] for name, _, _ in VECTOR_INDEXES} == {384}
    assert {shape(index) for index in portal_schema.values()} <= {shape(index) for index in after.values()}

    nam_graph_load()
    nam_adopt()
    assert nam_search("I moved to Lisbon last spring and I work at Acme Corp now.")[0] == (
        "I moved to Lisbon last spring and I work at Acme Corp now.")


def test_the_portals_schema_after_nams_is_complete_and_leaves_nams_in_place(portal_schema):
    schema_drop()
    nam_schema_install("384")
    nams = schema()

    call_command("install_labels", verbosity=0)

    after = schema()
    assert {name: shape(index) for name, index in nams.items()} == {
        name: shape(index) for name, index in after.items() if name in nams}
    assert {shape(index) for index in portal_schema.values()} <= {shape(index) for index in after.values()}
    assert {row["name"] for row in nam_statements("384")} <= names()


def test_nams_1536_dimension_indexes_are_explained_with_the_adoption_path_then_replaced(portal_schema):
    schema_drop()
    nam_schema_install("1536")
    nam_graph_load()

    with pytest.raises(ImproperlyConfigured) as refused:
        call_command("install_labels", verbosity=0)
    message = str(refused.value)
    assert "message_embedding_idx (Message.embedding) has 1536" in message
    assert "task_embedding_idx (ReasoningTrace.task_embedding) has 1536" in message
    assert "step_embedding_idx" not in message  # NAM's own, on a property the portal never reads
    assert "`manage.py adopt_nam`" in message and "`manage.py install_labels --replace-vector-indexes`" in message

    nam_adopt()
    call_command("install_labels", "--replace-vector-indexes", verbosity=0)

    after = schema()
    assert after["message_embedding_idx"]["dimensions"] == after["fact_embedding_idx"]["dimensions"] == 384
    assert after["step_embedding_idx"]["dimensions"] == 1536
    assert nam_search("Great, my manager Marta Silva is very kind.")[0] == "Great, my manager Marta Silva is very kind."
