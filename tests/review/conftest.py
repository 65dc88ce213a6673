"""Staff members with chosen review permissions, and a subject with pending merges and a supersession."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from neomodel import db

from memory import ingest
from tests.memory.api.test_messages import _append
from tests.memory.conftest import api_for, granted, make_agent, make_subject  # noqa: F401  shared fixtures

_ids = itertools.count(1)
ALL = ["review_merges", "review_facts", "review_traces", "view_memory_content", "manage_agents", "erase_subjects",
       "view_auditevent"]


@pytest.fixture
def staff(db):
    """Return a factory of (user, signed-in Client) for a staff member holding the given review permissions."""

    def make(*codenames):
        n = next(_ids)
        user = get_user_model().objects.create_user(username=f"staff{n}", email=f"staff{n}@example.com",
                                                    password="a-long-passphrase-3", is_staff=True)
        user.user_permissions.set(Permission.objects.filter(content_type__app_label="review", codename__in=codenames))
        client = Client()
        client.force_login(user)
        return user, client

    return make


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
    """A subject with two pending merges (Jonathon Smith, Anna Berger) and a superseded priority."""
    subject, agent, client = granted
    user = subject.user_id
    say(client, user, "Met Jonathan Smith and Anna Berg about Ticket 7.",
        entities=[{"name": "Jonathan Smith", "type": "PERSON"}, {"name": "Anna Berg", "type": "PERSON"}],
        facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": "high"}])
    say(client, user, "Jonathon Smith and Anna Berger bumped it.",
        entities=[{"name": "Jonathon Smith", "type": "PERSON"}, {"name": "Anna Berger", "type": "PERSON"}],
        facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": "critical"}])
    pairs = same_as(user)
    assert {name for name, (status, *_) in pairs.items() if status == "pending"} == {"Jonathon Smith", "Anna Berger"}
    return {"subject": subject, "agent": agent, "api": client, "pairs": pairs}
