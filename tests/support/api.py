"""Memory written the way agents write it: through the API, then extracted as the worker would."""

from neomodel import db

from memory import ingest

SAID_FIRST, SAID_LATER = "2025-03-10T09:00:00+00:00", "2026-01-05T09:30:00+00:00"


def append(client, user_id, messages, session="s1"):
    """Append messages to a session through the API; return the response."""
    return client.post(f"/api/v1/conversations/{session}/messages", {"user_id": user_id, "messages": messages},
                       format="json")


def say(client, user_id, content, session="s1", **fields) -> str:
    """Append one user message through the API and run its extraction now; return the message uid."""
    response = append(client, user_id, [{"role": "user", "content": content, **fields}], session=session)
    assert response.status_code == 201, response.json()
    uid = response.json()["results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"
    return uid


def same_as(user_id) -> dict:
    """Return the person's SAME_AS links by the merged entity's name: (status, its uid, the other's uid)."""
    rows, _ = db.cypher_query(
        "MATCH (a:Entity {user_id: $u})-[s:SAME_AS]->(b:Entity) RETURN a.name, s.status, a.uid, b.uid", {"u": user_id})
    return {name: (status, from_uid, into_uid) for name, status, from_uid, into_uid in rows}


def employment_history(client, user_id: str) -> dict[str, dict]:
    """Say two things through the API, each extracted as the worker does, plus an explicit fact with a
    stated date; return the facts by object.

    "Since 3 March 2025 I work at Contoso Bank." (said on 10 March 2025) holds from the date 2025-03-03;
    "I work at Fabrikam now." (said on 5 January 2026, 09:30 UTC) holds from that moment and supersedes it.
    """
    say(client, user_id, "Since 3 March 2025 I work at Contoso Bank.", created_at=SAID_FIRST)
    say(client, user_id, "Moved to Porto last year.", session="s2", created_at=SAID_FIRST,
        facts=[{"subject": "user", "predicate": "RESIDES_AT", "object": "Porto", "valid_from": "2024-06-01"}])
    say(client, user_id, "I work at Fabrikam now.", created_at=SAID_LATER)
    rows, _ = db.cypher_query(
        "MATCH (f:Fact {user_id: $u}) RETURN f.object, f.status, valueType(f.valid_from), valueType(f.valid_until)",
        {"u": user_id})
    facts = {obj: {"status": status, "valid_from": vf, "valid_until": vu} for obj, status, vf, vu in rows}
    assert facts == {
        "Contoso Bank": {"status": "superseded", "valid_from": "DATE NOT NULL",
                         "valid_until": "ZONED DATETIME NOT NULL"},
        "Porto": {"status": "current", "valid_from": "DATE NOT NULL", "valid_until": "NULL"},
        "Fabrikam": {"status": "current", "valid_from": "ZONED DATETIME NOT NULL", "valid_until": "NULL"},
    }
    return facts
