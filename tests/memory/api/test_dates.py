"""Validity as the product writes it: a stated date stays a date ("since 3 March 2025"), a statement
without one holds from the moment it was said. The context text and `as_of` read both."""

import pytest

from tests.support.api import employment_history

pytestmark = pytest.mark.django_db



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
