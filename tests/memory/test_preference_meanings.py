"""One liking said in other words is one current preference, whatever order its statements are extracted in."""

import pytest
from neomodel import db

from memory import ingest
from tests.support.api import append
from tests.support.graph import assert_same_graph, graph_snapshot, memory_forget

pytestmark = pytest.mark.django_db

SAID = [
    ("2025-01-01", "I love fantasy."),
    ("2025-01-02", "I love contemporary dance."),
    ("2025-01-03", "I love getting lost in fantasy stories."),
    ("2025-01-04", "I really enjoy horror movies."),
    ("2025-01-05", "I love dance."),
    ("2025-01-06", "I love scary films."),
    ("2025-01-07", "I love cats."),
    ("2025-01-08", "I love kittens."),
]


def _said(client, user_id, said=SAID) -> list[str]:
    messages = [{"role": "user", "content": text, "created_at": f"{day}T10:00:00+00:00"} for day, text in said]
    return [r["uid"] for r in append(client, user_id, messages, session="likes").json()["results"]]


def _extract(user_id, uids) -> None:
    for uid in uids:
        assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"


def _preferences(user_id) -> dict:
    rows, _ = db.cypher_query(
        "MATCH (p:Preference {user_id: $u}) OPTIONAL MATCH (p)-[s:SUPERSEDED_BY]->(n:Preference) "
        "RETURN p.preference, p.status, s.reason, n.preference, "
        "[(p)-[e:EXTRACTED_FROM]->(m:Message) | [m.content, e.via IS NOT NULL]] ORDER BY p.preference", {"u": user_id})
    return {text: {"status": status, "reason": reason, "into": into, "said": sorted(said)}
            for text, status, reason, into, said in rows}


def test_one_liking_in_other_words_is_one_current_node_with_every_statement(granted):
    subject, _, client = granted
    user = subject.user_id
    uids = _said(client, user)
    _extract(user, uids)
    in_order = graph_snapshot(user)
    found = _preferences(user)
    assert {text for text, p in found.items() if p["status"] == "current"} == {
        "likes fantasy", "likes contemporary dance", "likes horror movies", "likes dance", "likes cats"}
    assert found["likes fantasy"]["said"] == [["I love fantasy.", False], ["I love getting lost in fantasy stories.", True]]
    assert found["likes getting lost in fantasy stories"] == {
        "status": "superseded", "reason": "duplicate", "into": "likes fantasy",
        "said": [["I love getting lost in fantasy stories.", False]]}
    assert (found["likes scary films"]["reason"], found["likes scary films"]["into"]) == ("duplicate", "likes horror movies")
    assert (found["likes kittens"]["reason"], found["likes kittens"]["into"]) == ("duplicate", "likes cats")

    for order in (uids[::-1], uids[1::2] + uids[::2]):
        memory_forget(user)
        _extract(user, order)
        assert_same_graph(in_order, graph_snapshot(user))


def test_the_other_polarity_in_other_words_supersedes_the_liking(granted):
    subject, _, client = granted
    user = subject.user_id
    uids = _said(client, user, [("2025-01-01", "I love fantasy."),
                                ("2025-01-08", "I don't like getting lost in fantasy stories anymore.")])
    _extract(user, uids[::-1])
    found = _preferences(user)
    assert found["likes fantasy"]["status"] == "superseded" and found["likes fantasy"]["reason"] is None
    assert found["dislikes getting lost in fantasy stories"]["status"] == "current"


def test_an_undone_merge_stays_undone_when_more_is_said(granted):
    subject, _, client = granted
    user = subject.user_id
    _extract(user, _said(client, user, [SAID[0], SAID[2]]))
    assert _preferences(user)["likes getting lost in fantasy stories"]["reason"] == "duplicate"
    assert ingest.preference_duplicates_restore(user_id=user) == 1
    _extract(user, _said(client, user, [("2025-01-09", "I like fantasy.")]))
    found = _preferences(user)
    assert found["likes getting lost in fantasy stories"]["status"] == "current"
    assert found["likes fantasy"]["said"] == [["I like fantasy.", False], ["I love fantasy.", False]]


def test_a_liking_in_the_context_names_the_turn_of_each_statement(granted):
    subject, _, client = granted
    user = subject.user_id
    uids = _said(client, user, [SAID[0], SAID[2]])
    _extract(user, uids[::-1])
    response = client.post("/api/v1/context", {"user_id": user, "query": "What does the user love to read?",
                                               "include": {"history": False}, "min_relevance": 0},
                           format="json")
    assert response.status_code == 200, response.content
    liking = next(item for item in response.json()["items"] if item["type"] == "preference")
    assert liking["text"].endswith("likes fantasy")
    assert liking["provenance"]["message_uids"] == uids
    assert liking["provenance"]["message_uid"] == uids[0]
