"""bench_knowledge refuses a database that is not meant for it (its full run is measured, not tested), and its
encoder comparison reports the float MiniLM's top 10 kept by exact cosine and through the index."""

import json
from io import StringIO

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


def test_the_int8_encoder_is_compared_with_the_float_one_and_leaves_no_bench_graph():
    out = StringIO()
    call_command("bench_knowledge", overlap=True, candidate="minilm-int8", chunks=1000, queries=10,
                 allow_populated=True, stdout=out)
    line = json.loads(out.getvalue())

    assert line["candidate"] == "minilm-int8" and line["queries"] == 10 and line["top_k"] == 10
    assert sorted(line["overlap"]) == ["exact", "index"]
    assert all(0.9 <= kept <= 1.0 for kept in line["overlap"]["exact"].values())
    assert all(0.0 < kept <= 1.0 for kept in [*line["overlap"]["index"].values(), *line["index_recall_at_10"].values()])
    assert db.cypher_query(BENCH_NODES)[0][0][0] == 0


def test_an_encoder_of_another_space_is_refused():
    with pytest.raises(CommandError, match="compares MiniLM encoders; 'openai'"):
        call_command("bench_knowledge", overlap=True, candidate="openai", allow_populated=True)
