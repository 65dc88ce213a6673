"""Subjects with pending merges that real extraction and resolution proposed."""

import pytest

from tests.support.api import same_as, say

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
