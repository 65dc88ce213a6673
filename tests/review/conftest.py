"""Subjects with pending merges that real extraction and resolution proposed."""

import pytest
from neomodel import db

from memory import ingest
from tests.memory.api.test_messages import _append

ALL = ["review_merges", "review_facts", "review_traces", "view_memory_content", "manage_agents", "erase_subjects",
       "view_auditevent"]


def say(client, user_id, content, session="s1", **explicit) -> str:
    """Append one user message through the API and run its extraction now; return the message uid."""
    body = _append(client, user_id, [{"role": "user", "content": content, **explicit}], session=session).json()
    uid = body["results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"
    return uid


def same_as(user_id) -> dict:
    rows, _ = db.cypher_query(
        "MATCH (a:Entity {user_id: $u})-[s:SAME_AS]->(b:Entity) RETURN a.name, s.status, a.uid, b.uid", {"u": user_id})
    return {name: (status, from_uid, into_uid) for name, status, from_uid, into_uid in rows}


@pytest.fixture
def proposals(granted):
    """A subject with two pending merges (Jonathon Smith, Anna Berger) that extraction and resolution proposed.

    The second message names Jonathan Smith beside both near-misses, so the pair is related too.
    """
    subject, agent, client = granted
    user = subject.user_id
    say(client, user, "Jonathan Smith met Anna Berg.")
    say(client, user, "Jonathon Smith and Anna Berger met Jonathan Smith.")
    pairs = same_as(user)
    assert {name: status for name, (status, *_) in pairs.items()} == {"Jonathon Smith": "pending",
                                                                      "Anna Berger": "pending"}
    return {"subject": subject, "agent": agent, "api": client, "pairs": pairs}


@pytest.fixture
def extracted(granted):
    """A subject whose two pending merges came from real extraction, so re-extraction can be tested."""
    subject, agent, client = granted
    user = subject.user_id
    say(client, user, "Met Jonathan Smith and Anna Berg.",
        entities=[{"name": "Jonathan Smith", "type": "PERSON"}, {"name": "Anna Berg", "type": "PERSON"}])
    say(client, user, "Jonathon Smith and Anna Berger called.",
        entities=[{"name": "Jonathon Smith", "type": "PERSON"}, {"name": "Anna Berger", "type": "PERSON"}])
    pairs = same_as(user)
    assert {name for name, (status, *_) in pairs.items() if status == "pending"} == {"Jonathon Smith", "Anna Berger"}
    return {"subject": subject, "agent": agent, "api": client, "pairs": pairs}
