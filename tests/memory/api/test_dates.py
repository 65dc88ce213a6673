"""Validity as the product writes it: a stated date stays a date ("since 3 March 2025"), a statement
without one holds from the moment it was said. The context text and `as_of` read both."""

import pytest
from neomodel import db

from tests.memory.test_graph import say

pytestmark = pytest.mark.django_db

SAID_FIRST, SAID_LATER = "2025-03-10T09:00:00+00:00", "2026-01-05T09:30:00+00:00"


def employment_history(client, user_id: str) -> dict[str, dict]:
    """Say two things through the API, each extracted as the worker does, plus an explicit fact with a
    stated date; return the facts by object.

    "Since 3 March 2025 I work at Contoso Bank." (said on 10 March 2025) holds from the date 2025-03-03;
    "I work at Fabrikam now." (said on 5 January 2026, 09:30 UTC) holds from that moment and supersedes it.
    """
    say(client, user_id, "Since 3 March 2025 I work at Contoso Bank.", created_at=SAID_FIRST)
    say(client, user_id, "Moved last year.", session="s2", created_at=SAID_FIRST,
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


def _facts_text(client, user_id: str, **extra) -> list[str]:
    response = client.post("/api/v1/context", {"user_id": user_id, "query": "Where do I work and live?",
                                               "include": {"history": False}, "min_relevance": 0, **extra},
                           format="json")
    assert response.status_code == 200, response.json()
    lines = response.json()["context"].splitlines()
    facts = []
    for line in lines[lines.index("Facts:") + 1:] if "Facts:" in lines else []:
        if not line.startswith("- "):
            break
        facts.append(line)
    return sorted(facts)


def test_the_context_prints_a_stated_date_and_a_moment_as_days(granted):
    subject, _, client = granted
    employment_history(client, subject.user_id)
    assert _facts_text(client, subject.user_id) == sorted(["- user works at Fabrikam (since 5 January 2026)",
                                                           "- user lives in Porto (since 1 June 2024)"])


@pytest.mark.parametrize("as_of, expected", [
    ("2025-03-02T23:59:00Z", ["- user lives in Porto (since 1 June 2024)"]),
    # A stated date holds from the start of its day.
    ("2025-03-03T00:00:00Z", ["- user works at Contoso Bank (since 3 March 2025) (until 5 January 2026)",
                              "- user lives in Porto (since 1 June 2024)"]),
    ("2026-01-05T09:29:00Z", ["- user works at Contoso Bank (since 3 March 2025) (until 5 January 2026)",
                              "- user lives in Porto (since 1 June 2024)"]),
    ("2026-01-05T09:30:00Z", ["- user works at Fabrikam (since 5 January 2026)",
                              "- user lives in Porto (since 1 June 2024)"]),
])
def test_as_of_compares_dates_and_moments(granted, as_of, expected):
    subject, _, client = granted
    employment_history(client, subject.user_id)
    assert _facts_text(client, subject.user_id, as_of=as_of) == sorted(expected)


def test_item_pages_of_the_api_return_dates_and_moments_in_iso_form(granted):
    subject, _, client = granted
    employment_history(client, subject.user_id)
    items = client.get(f"/api/v1/users/{subject.user_id}/facts/").json()["items"]
    validity = {item["object"]: (item["valid_from"], item["valid_until"]) for item in items}
    assert validity == {"Contoso Bank": ("2025-03-03", "2026-01-05T09:30:00Z"),
                        "Porto": ("2024-06-01", None), "Fabrikam": ("2026-01-05T09:30:00Z", None)}
