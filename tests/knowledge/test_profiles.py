"""Profiles are checked against the graph when saved: indexes must exist, retrieval queries must only read."""

import pytest
from django.core.exceptions import ValidationError

from knowledge import cypher
from knowledge.models import RetrievalProfile
from knowledge.selectors import retrieval_profile_problems
from knowledge.services import retrieval_profile_check


def test_the_demo_enrichment_query_is_accepted(make_profile):
    profile = make_profile(mode=RetrievalProfile.Mode.HYBRID, retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL)

    assert retrieval_profile_problems(profile=profile) == {}


@pytest.mark.parametrize(
    "retrieval_query",
    [
        "SET node.text = 'x' RETURN node.text AS text, score",
        "CREATE (:Planted) RETURN node.text AS text, score",
        "MERGE (c:Company {uid: 'x'}) RETURN node.text AS text, score",
        "DETACH DELETE node RETURN 'gone' AS text, score",
        "MATCH (node)-[r]->() DELETE r RETURN node.text AS text, score",
        "WITH node, score CALL (node) { SET node:Seen } RETURN node.text AS text, score",
        "REMOVE node.text RETURN 'x' AS text, score",
    ],
)
def test_writing_retrieval_queries_are_rejected(make_profile, retrieval_query):
    profile = make_profile(retrieval_query=retrieval_query)

    problems = retrieval_profile_problems(profile=profile)

    assert "retrieval_query" in problems
    assert "writes" in " ".join(problems["retrieval_query"])


def test_load_csv_is_rejected(make_profile):
    profile = make_profile(
        retrieval_query="LOAD CSV FROM 'http://example.com/x.csv' AS line RETURN line[0] AS text, score"
    )

    assert "LOAD CSV" in " ".join(retrieval_profile_problems(profile=profile)["retrieval_query"])


def test_a_retrieval_query_must_return_text_and_score(make_profile):
    profile = make_profile(retrieval_query="RETURN node.uid AS uid")

    (problem,) = retrieval_profile_problems(profile=profile)["retrieval_query"]

    assert "text and score" in problem


def test_a_syntax_error_is_reported(make_profile):
    profile = make_profile(retrieval_query="RETURN node.text AS text, score,")

    assert "Neo4j rejects it" in retrieval_profile_problems(profile=profile)["retrieval_query"][0]


@pytest.mark.parametrize(
    "fields, field, message",
    [
        ({"mode": "vector", "vector_index": ""}, "vector_index", "needs a vector index"),
        ({"mode": "fulltext", "fulltext_index": ""}, "fulltext_index", "needs a fulltext index"),
        ({"mode": "vector", "vector_index": "nope"}, "vector_index", "No vector node index named 'nope'"),
        ({"mode": "hybrid", "fulltext_index": "vector_index_Chunk_embedding"}, "fulltext_index", "No fulltext"),
        ({"mode": "vector", "vector_index": "fulltext_index_Chunk_text"}, "vector_index", "No vector"),
    ],
)
def test_indexes_are_checked_against_show_indexes(make_profile, fields, field, message):
    problems = retrieval_profile_problems(profile=make_profile(**fields))

    assert message in problems[field][0]


@pytest.mark.django_db
def test_the_check_raises_the_problems_by_field(make_profile):
    profile = make_profile(retrieval_query="CREATE (:Planted) RETURN 'x' AS text, 1.0 AS score")

    with pytest.raises(ValidationError) as raised:
        retrieval_profile_check(profile=profile)

    assert set(raised.value.message_dict) == {"retrieval_query"}
