"""Vector, fulltext and hybrid search over a real Neo4j, with and without enrichment."""

import pytest
from neomodel import db

from knowledge.models import RetrievalProfile
from knowledge.selectors import knowledge_query_text, knowledge_search, lucene_escape
from portal.exceptions import ApplicationError

ACTUATOR_CHUNK = "demo-doc-halvard-2025-2"
FREIGHT_CHUNK = "demo-doc-brightmoor-2025-4"


def test_vector_search_finds_the_chunk_by_meaning(knowledge_graph, make_profile):
    profile = make_profile(mode=RetrievalProfile.Mode.VECTOR)

    items = knowledge_search(profile=profile, query="a disruption at our only actuator supplier would delay shipments")

    assert items[0].uid == ACTUATOR_CHUNK
    assert len(items) == 5
    assert [i.score for i in items] == sorted((i.score for i in items), reverse=True)


def test_fulltext_search_finds_the_chunk_by_words(knowledge_graph, make_profile):
    profile = make_profile(mode=RetrievalProfile.Mode.FULLTEXT)

    items = knowledge_search(profile=profile, query="refrigerated freight")

    assert items[0].uid == FREIGHT_CHUNK
    assert all("refrigerated" in i.text.lower() or "freight" in i.text.lower() for i in items)


@pytest.mark.parametrize("ranker", ["max", "linear", "rrf"])
def test_hybrid_search_ranks_a_chunk_both_indexes_agree_on_first(knowledge_graph, make_profile, ranker):
    profile = make_profile(mode=RetrievalProfile.Mode.HYBRID, ranker=ranker, alpha=0.3, rrf_k=60)

    items = knowledge_search(profile=profile, query="refrigerated freight capacity for frozen meals")

    assert items[0].uid == FREIGHT_CHUNK
    best_in_both = {"max": 1.0, "linear": 0.3 + 0.7, "rrf": 2 / 61}[ranker]
    assert items[0].score == pytest.approx(best_in_both)


def test_hybrid_linear_adds_both_halves_when_they_are_equal(knowledge_graph, make_profile):
    """neo4j-graphrag's UNION would keep one of two equal 0.5 rows and score the best chunk 0.5."""
    profile = make_profile(mode=RetrievalProfile.Mode.HYBRID, ranker="linear", alpha=0.5)

    items = knowledge_search(profile=profile, query="refrigerated freight capacity for frozen meals")

    assert (items[0].uid, items[0].score) == (FREIGHT_CHUNK, pytest.approx(1.0))


def test_hybrid_finds_what_only_one_index_knows(knowledge_graph, make_profile):
    profile = make_profile(mode=RetrievalProfile.Mode.HYBRID, ranker="rrf", top_k=3)

    items = knowledge_search(profile=profile, query="Elmfield")

    assert "demo-doc-brightmoor-2025-5" in [i.uid for i in items]


def test_enrichment_walks_to_company_document_risks_and_products(knowledge_graph, enriched_profile):
    items = knowledge_search(profile=enriched_profile, query="refrigerated freight capacity for frozen meals")

    top = items[0]
    assert top.uid == FREIGHT_CHUNK
    assert top.metadata["company"] == "Brightmoor Foods Corp."
    assert top.metadata["document"] == "Brightmoor Foods Corp. annual report 2025"
    brightmoor = next(c for c in knowledge_graph if c["name"] == "Brightmoor Foods Corp.")
    assert len(brightmoor["risks"]) == 7 and len(top.metadata["risks"]) == 5
    assert set(top.metadata["risks"]) <= {r["name"] for r in brightmoor["risks"]}
    assert sorted(top.metadata["products"]) == sorted(p["name"] for p in brightmoor["products"])


def test_plain_search_of_an_enriched_profile_returns_raw_hits(knowledge_graph, enriched_profile):
    raw = knowledge_search(profile=enriched_profile, query="lithium prices", enrich=False)
    enriched = knowledge_search(profile=enriched_profile, query="lithium prices")

    assert [(i.uid, i.score) for i in raw] == [(i.uid, i.score) for i in enriched]
    assert all(i.metadata == {} for i in raw)
    assert all(i.metadata["company"] for i in enriched)


def test_top_k_overrides_the_profile(knowledge_graph, make_profile):
    profile = make_profile(mode=RetrievalProfile.Mode.VECTOR, top_k=5)

    assert len(knowledge_search(profile=profile, query="battery fire", top_k=2)) == 2


def test_an_empty_query_is_refused(knowledge_graph, make_profile):
    with pytest.raises(ApplicationError, match="empty"):
        knowledge_search(profile=make_profile(), query="  \n")


def test_a_dropped_index_is_a_clear_error(knowledge_graph, make_profile):
    profile = make_profile(mode=RetrievalProfile.Mode.FULLTEXT, fulltext_index="no_such_index")

    with pytest.raises(ApplicationError, match="test-profile"):
        knowledge_search(profile=profile, query="battery")


def test_query_text_keeps_the_last_user_and_assistant_messages_that_hold_text():
    messages = [
        {"role": "user", "content": "first"},
        {"role": "system", "content": "you are a helpful assistant"},
        {"role": "assistant", "content": "second"},
        {"role": "tool", "content": "{}"},
        {"role": "user", "content": "third"},
        {"role": "assistant", "content": " \n "},
    ]

    assert knowledge_query_text(query=None, messages=messages, window=2) == "second\nthird"
    assert knowledge_query_text(query=None, messages=messages, window=5) == "first\nsecond\nthird"
    assert knowledge_query_text(query="given", messages=messages, window=2) == "given"


@pytest.mark.parametrize(
    "text, escaped",
    [
        ('say "hello"', 'say \\"hello\\"'),
        ("[2020 TO 2025] {a} (b)", "\\[2020 TO 2025\\] \\{a\\} \\(b\\)"),
        ("robots AND safety OR NOT fire", "robots and safety or not fire"),
        ("C:\\path\\file", "C\\:\\\\path\\\\file"),
        ("a && b || !c", "a \\&\\& b \\|\\| \\!c"),
        ("+must -not ~fuzzy^2 wild* ? /re/", "\\+must \\-not \\~fuzzy\\^2 wild\\* \\? \\/re\\/"),
        ("ANDROID ORCHID", "ANDROID ORCHID"),
    ],
)
def test_lucene_escaping(text, escaped):
    assert lucene_escape(text) == escaped


@pytest.mark.parametrize(
    "query",
    ['"Arcline', "Arcline)", "[Arcline", "Arcline\\", "Arcline AND", "OR Arcline", "-Arcline", "Arcline:", "Arcline~"],
)
def test_lucene_syntax_in_user_text_neither_breaks_nor_alters_the_search(knowledge_graph, make_profile, query):
    profile = make_profile(mode=RetrievalProfile.Mode.FULLTEXT)

    items = knowledge_search(profile=profile, query=query)

    assert "demo-doc-halvard-2025-0" in [i.uid for i in items]


def test_operator_words_are_searched_as_words(knowledge_graph, make_profile):
    """Unescaped, `AND zebra` would require a word that no chunk has."""
    profile = make_profile(mode=RetrievalProfile.Mode.FULLTEXT)

    assert knowledge_search(profile=profile, query="Arcline AND zebra")


def test_punctuation_only_text_finds_nothing_without_error(knowledge_graph, make_profile):
    profile = make_profile(mode=RetrievalProfile.Mode.FULLTEXT)

    assert knowledge_search(profile=profile, query='"()[]"') == []


def test_search_runs_read_only_even_if_a_writing_query_was_stored(knowledge_graph, make_profile):
    profile = make_profile(retrieval_query="SET node.text = 'overwritten' RETURN node.text AS text, score")

    with pytest.raises(ApplicationError):
        knowledge_search(profile=profile, query="battery fire")

    rows, _ = db.cypher_query("MATCH (c:Chunk {text: 'overwritten'}) RETURN count(c)")
    assert rows[0][0] == 0
