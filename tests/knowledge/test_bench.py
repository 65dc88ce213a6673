"""bench_knowledge refuses a database that is not meant for it (its full run is measured, not tested)."""

import pytest
from django.core.management import CommandError, call_command
from neomodel import db

BENCH_INDEXES = "SHOW INDEXES YIELD name WHERE name STARTS WITH 'bench_' RETURN count(*)"
BENCH_NODES = "MATCH (n:KnowledgeBench) RETURN count(n)"


def test_a_database_holding_other_data_is_refused(knowledge_graph):
    with pytest.raises(CommandError, match="Refusing to run.*--allow-populated"):
        call_command("bench_knowledge", chunks=200)

    assert db.cypher_query(BENCH_NODES)[0][0][0] == 0
    assert db.cypher_query(BENCH_INDEXES)[0][0][0] == 0
