"""Message recall through the in-index filtered vector search (Neo4j 2026.01+), against the exact scan.

On the 5.26 line the server cannot filter inside a vector index: the probe says so and the tests of
the search itself are skipped there (CI runs this module on the 2026 line too).
"""

import re
from datetime import UTC, datetime, timedelta

import pytest

from memory import cypher, selectors, services
from memory.embeddings import get_embedder
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


@pytest.fixture
def two_people(make_subject, make_agent):
    """Alice and Bob told the same agent the same things, an hour apart each, through the product's append."""
    agent, _ = make_agent()
    people = []
    for subject in (make_subject(), make_subject()):
        services.grant_create(subject=subject, agent=agent)
        services.messages_append(subject=subject, agent=agent, session_id="s1", messages=[
            {"role": "user" if i % 2 == 0 else "assistant", "content": text, "created_at": START + timedelta(hours=i)}
            for i, text in enumerate(TURNS)])
        people.append(subject)
    return people


def _params(subject, **changes):
    return {"user_id": subject.user_id, "embedding": get_embedder().embed([QUESTION])[0].tolist(), "exclude": [],
            "limit": 5, "after": None, "before": None, "cutoffs": {"history": None}} | changes


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


def test_filtered_search_gives_the_exact_answer_from_the_persons_own_messages(filtered, two_people):
    alice, bob = two_people
    exact = graphdb.rows(cypher.MESSAGES_BY_VECTOR, _params(alice))
    found = selectors.messages_similar(user_id=alice.user_id, embedding=_params(alice)["embedding"], exclude=[],
                                       limit=5)
    assert [row["uid"] for row in found] == [row["uid"] for row in exact]
    assert found[0]["content"] == TURNS[0]
    assert {row["uid"] for row in found} <= _uids(alice) and not {row["uid"] for row in found} & _uids(bob)
    assert [row["score"] for row in found] == pytest.approx([row["score"] for row in exact], abs=1e-6)
    assert {row["session_id"] for row in found} == {"s1"}


def test_filtered_search_keeps_the_time_span_the_exclusions_and_retention(filtered, two_people):
    alice, _ = two_people
    everything = graphdb.rows(cypher.MESSAGES_BY_VECTOR, _params(alice, limit=20))
    excluded = [everything[0]["uid"], everything[3]["uid"]]
    during = (START + timedelta(hours=5), START + timedelta(hours=14))
    for changes in ({"exclude": excluded}, {"after": during[0], "before": during[1]},
                    {"cutoffs": {"history": START + timedelta(hours=12)}}):
        exact = graphdb.rows(cypher.MESSAGES_BY_VECTOR, _params(alice, **changes))
        found = graphdb.rows(cypher.MESSAGES_BY_VECTOR_SEARCH, _params(alice, **changes))
        assert [row["uid"] for row in found] == [row["uid"] for row in exact], changes
        assert len(found) == 5
    within = selectors.messages_similar(user_id=alice.user_id, embedding=_params(alice)["embedding"],
                                        exclude=excluded, limit=20, during=during)
    assert len(within) == 9 and not {row["uid"] for row in within} & set(excluded)
    assert all(during[0] <= row["created_at"] < during[1] for row in within)



def test_the_filtered_index_beside_nams_is_no_conflict_for_install_labels(filtered):
    from memory.adoption import vector_index_conflicts

    assert vector_index_conflicts(dimensions=get_embedder().dimensions) == []


@pytest.mark.parametrize("exact_scan_max", [0, 1000], ids=["through the index", "scanned"])
def test_the_context_recalls_the_exact_nearest_messages_through_the_index_or_the_scan(filtered, two_people,
                                                                                      settings, exact_scan_max):
    """Past RECALL_EXACT_SCAN_MAX messages the context's recall searches the index, else it scans; both
    rank the person's own messages as the exact scan does."""
    settings.RECALL_EXACT_SCAN_MAX = exact_scan_max
    alice, _ = two_people

    recalled = selectors.messages_relevant(user_id=alice.user_id, embedding=_params(alice)["embedding"],
                                           lucene=None, limit=5)
    exact = [row["uid"] for row in graphdb.rows(cypher.MESSAGES_BY_VECTOR, _params(alice, limit=len(TURNS)))]

    assert len(recalled) == 5 and {m["uid"] for m in recalled} <= _uids(alice)
    assert {m["uid"]: m["ranks"]["vector"] for m in recalled} == {m["uid"]: exact.index(m["uid"]) + 1
                                                                  for m in recalled}
