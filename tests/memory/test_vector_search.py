"""The context's message recall, through the in-index filtered vector search (Neo4j 2026.01+) or the
scan of every message's copy in signed bytes, against exact cosine computed here from the stored vectors.

On the 5.26 line the server cannot filter inside a vector index: the probe says so and the tests
through the index are skipped there (CI runs this module on the 2026 line too).
"""

import io
import re
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.core.management import call_command

from memory import ingest, selectors, services
from memory.embeddings import get_embedder, int8_copy
from portal import graphdb

pytestmark = pytest.mark.django_db

TURNS = [
    "I finally booked the flights to Lisbon for the conference in May.",
    "My sister adopted a grey kitten called Pebble last weekend.",
    "The quarterly budget review moved to Thursday afternoon.",
    "I've been training for the half marathon, three runs a week.",
    "Our landlord says the lease renewal needs a signature by Friday.",
    "The new espresso machine at the office makes terrible coffee.",
    "I started learning the piano again after ten years.",
    "We planted tomatoes and basil in the community garden.",
    "The database migration failed twice because of a lock timeout.",
    "My flight to Osaka was delayed by four hours because of the storm.",
    "I'm allergic to peanuts, so please avoid the satay place.",
    "The team wants to launch the mobile app before the summer holidays.",
    "I bought a second-hand road bike for commuting.",
    "The vaccine appointment is at the clinic on Elm Street at 9.",
    "Grandma's recipe for apple pie uses a pinch of cardamom.",
    "The camera sensor overheats when we record in 4K.",
    "I moved to a flat near the river in Porto.",
    "The invoice from the printer was charged twice.",
    "We watched the harvest festival fireworks from the hill.",
    "My manager asked for the incident report by tomorrow morning.",
]
QUESTION = "When is my flight to the conference?"
START = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def filtered():
    if not graphdb.vector_search_filters():
        pytest.skip(f"Neo4j {graphdb.server_info()['version']} cannot filter inside a vector index (2026.01+ can)")


@pytest.fixture(params=["through the index", "scanned"])
def recall_way(request, settings):
    """Recall through the filtered index (every person, where the server has one), or by the scan."""
    if request.param == "through the index":
        if not graphdb.vector_search_filters():
            pytest.skip(f"Neo4j {graphdb.server_info()['version']} cannot filter inside a vector index")
        settings.RECALL_EXACT_SCAN_MAX = 0
    else:
        settings.RECALL_EXACT_SCAN_MAX = 1000
    return request.param


@pytest.fixture
def two_people(make_subject, make_agent):
    """Alice and Bob told the same agent the same things, an hour apart each, through the product's append
    and the worker's step (which embeds each message)."""
    agent, _ = make_agent()
    people = []
    for subject in (make_subject(), make_subject()):
        services.grant_create(subject=subject, agent=agent)
        results = services.messages_append(subject=subject, agent=agent, session_id="s1", messages=[
            {"role": "user" if i % 2 == 0 else "assistant", "content": text, "created_at": START + timedelta(hours=i)}
            for i, text in enumerate(TURNS)])
        for result in results:
            ingest.message_extract(message_uid=result["uid"], user_id=subject.user_id)
        people.append(subject)
    return people


def _question():
    return get_embedder().embed([QUESTION])[0]


def _exact(subject, *, exclude=(), during=None, since=None, limit=5):
    """Return the subject's messages by exact cosine to the question, [(uid, score)] on Neo4j's (1 + cos) / 2 scale,
    computed here from the stored vectors: outside `exclude`, said within `during`, and not before `since`."""
    stored = graphdb.rows("MATCH (m:Message {user_id: $u}) RETURN m.uid AS uid, m.embedding AS embedding, "
                          "m.created_at AS created_at", {"u": subject.user_id})
    kept = [m for m in stored if m["uid"] not in exclude and (since is None or m["created_at"] >= since)
            and (during is None or during[0] <= m["created_at"] < during[1])]
    question = _question()
    scored = [(m["uid"], (1 + float(np.dot(m["embedding"], question) / np.linalg.norm(m["embedding"]))) / 2)
              for m in kept]
    return sorted(scored, key=lambda pair: -pair[1])[:limit]


def _copies(subject) -> dict[str, bytes | None]:
    stored = graphdb.rows("MATCH (m:Message {user_id: $u}) RETURN m.uid AS uid, m.embedding_int8 AS copy",
                          {"u": subject.user_id})
    return {row["uid"]: row["copy"] and bytes(row["copy"]) for row in stored}


def _by_copy(subject) -> dict[str, float]:
    """Return each of the subject's messages' cosine to the question through its copy in signed bytes, on Neo4j's
    (1 + cos) / 2 scale, computed here."""
    question = _question()
    scored = {}
    for uid, copy in _copies(subject).items():
        components = np.frombuffer(copy, dtype=np.int8).astype(np.float64)
        scored[uid] = (1 + float(np.dot(components, question) / np.linalg.norm(components)
                                 / np.linalg.norm(question))) / 2
    return scored


def _uids(subject):
    return set(graphdb.scalar("MATCH (m:Message {user_id: $u}) RETURN collect(m.uid)", {"u": subject.user_id}))


def test_the_probe_matches_the_servers_version_and_install_labels_builds_the_index_only_there():
    major, minor = (int(part) for part in re.match(r"(\d+)\.(\d+)", graphdb.server_info()["version"]).groups())
    assert graphdb.vector_search_filters() == ((major, minor) >= (2026, 1))
    indexes = {row["name"]: row["properties"] for row in graphdb.rows(
        "SHOW VECTOR INDEXES YIELD name, properties RETURN name, properties")}
    if graphdb.vector_search_filters():
        assert indexes["message_embedding_filtered"] == ["embedding", "user_id", "created_at"]
    else:
        assert "message_embedding_filtered" not in indexes


def test_recall_gives_the_exact_answer_from_the_persons_own_messages(recall_way, two_people):
    """Through the index the candidates are re-ranked by the exact cosine; the scan ranks by each message's copy in
    signed bytes, whose cosine is the exact one to a few thousandths."""
    alice, bob = two_people

    found = selectors.messages_nearest(user_id=alice.user_id, embedding=_question().tolist(), limit=5)

    exact = _exact(alice)
    assert [hit["uid"] for hit in found] == [uid for uid, _ in exact]
    assert {hit["uid"] for hit in found} <= _uids(alice) and not {hit["uid"] for hit in found} & _uids(bob)
    assert [hit["score"] for hit in found] == pytest.approx(
        [score for _, score in exact], abs=1e-6 if recall_way == "through the index" else 2e-3)
    first = graphdb.scalar("MATCH (m:Message {uid: $uid}) RETURN m.content", {"uid": found[0]["uid"]})
    assert first == TURNS[0]


def test_the_workers_step_stores_each_message_vector_with_its_copy_in_signed_bytes(two_people):
    alice, _ = two_people

    stored = graphdb.rows("MATCH (m:Message {user_id: $u}) RETURN m.embedding AS embedding, "
                          "m.embedding_int8 AS copy", {"u": alice.user_id})

    assert len(stored) == len(TURNS)
    for message in stored:
        assert bytes(message["copy"]) == int8_copy(message["embedding"])
        copy = np.frombuffer(bytes(message["copy"]), dtype=np.int8)
        assert np.abs(copy).max() == 127
        assert float(np.dot(copy, message["embedding"]) / np.linalg.norm(copy)) == pytest.approx(1.0, abs=1e-3)


# A store written before the worker kept a copy of each vector: the product no longer writes one, so the copies
# are taken away by hand.
COPIES_REMOVE = "MATCH (m:Message {user_id: $u}) REMOVE m.embedding_int8"


def test_messages_stored_without_a_copy_are_scanned_by_their_floats_until_install_labels_gives_them_one(two_people):
    alice, _ = two_people
    copies = _copies(alice)
    assert len(copies) == len(TURNS) and all(copies.values())
    graphdb.run(COPIES_REMOVE, {"u": alice.user_id})

    found = selectors.messages_nearest(user_id=alice.user_id, embedding=_question().tolist(), limit=5)
    assert [(hit["uid"], hit["score"]) for hit in found] == [(uid, pytest.approx(score, abs=1e-6))
                                                             for uid, score in _exact(alice)]

    call_command("install_labels", stdout=io.StringIO())

    assert _copies(alice) == copies
    assert ingest.message_copies_fill() == 0


def test_recall_keeps_the_sessions_recent_turns_out_the_time_span_and_retention(recall_way, two_people):
    alice, _ = two_people
    question = _question().tolist()
    limits = {"history": 3, "messages": 5, "facts": 0, "preferences": 0, "entities": 0, "traces": 0}
    sections = {"history": True, "recall": True, "long_term": False, "reasoning": False}
    cutoffs = {"history": None, "long_term": None, "reasoning": None}

    read = selectors.context_recall(user_id=alice.user_id, session_id="s1", sections=sections, limits=limits,
                                    embedding=question, cutoffs=cutoffs)
    recent = [m["uid"] for m in read["recent"]]
    assert len(recent) == 3
    assert [hit["uid"] for hit in read["branches"]["vector"][:5]] == [uid for uid, _ in _exact(alice, exclude=recent)]

    during = (START + timedelta(hours=5), START + timedelta(hours=14))
    within = selectors.messages_nearest(user_id=alice.user_id, embedding=question, limit=20, during=during)
    assert [hit["uid"] for hit in within] == [uid for uid, _ in _exact(alice, during=during, limit=20)]
    assert len(within) == 9

    since = START + timedelta(hours=12)
    kept = selectors.messages_nearest(user_id=alice.user_id, embedding=question, limit=5,
                                      cutoffs={"history": since, "long_term": None, "reasoning": None})
    assert [hit["uid"] for hit in kept] == [uid for uid, _ in _exact(alice, since=since)]


def test_the_filtered_index_beside_nams_is_no_conflict_for_install_labels(filtered):
    from memory.services.adoption import vector_index_conflicts

    assert vector_index_conflicts(dimensions=get_embedder().dimensions) == []


def test_the_context_reads_every_candidates_similarity_through_the_index_or_the_scan(recall_way, two_people):
    """Past RECALL_EXACT_SCAN_MAX messages the context's recall searches the index, else it scans; both
    rank the person's own messages as exact search does, and every candidate message (the turns next to
    what was found too) comes with its similarity for memory.context to score: its copy's, within 1e-3 of the
    exact one."""

    alice, _ = two_people
    limits = {"history": 0, "messages": 5, "facts": 0, "preferences": 0, "entities": 0, "traces": 0}
    sections = {"history": False, "recall": True, "long_term": False, "reasoning": False}

    found = selectors.context_recall(user_id=alice.user_id, session_id=None, sections=sections, limits=limits,
                                     embedding=_question().tolist(), cutoffs=selectors.person_cutoffs(
                                         user_id=alice.user_id))
    exact = dict(_exact(alice, limit=len(TURNS)))

    assert [hit["uid"] for hit in found["branches"]["vector"]] == list(exact)[:selectors.RECALL_DEPTH]
    assert set(found["messages"]) <= _uids(alice)
    similarity = {uid: m["similarity"] for uid, m in found["messages"].items()}
    by_copy = _by_copy(alice)
    assert similarity == pytest.approx({uid: by_copy[uid] for uid in similarity}, abs=1e-6)
    assert similarity == pytest.approx({uid: exact[uid] for uid in similarity}, abs=1e-3)
