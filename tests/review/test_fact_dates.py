"""The staff fact pages over validity as the product writes it: a stated date and a moment."""

import pytest

from tests.support.api import employment_history

pytestmark = pytest.mark.django_db


def test_the_timeline_places_a_stated_date_and_a_moment_on_one_axis(granted, staff):
    subject, _, api = granted
    employment_history(api, subject.user_id)
    _, client = staff("review_facts", "view_memory_content")
    page = client.get("/admin/review/facts/", {"user": subject.user_id, "subject": "user"})
    assert page.status_code == 200
    body = page.content.decode()
    # A stated date reads as its day, a moment with its time (here in UTC, the reader's zone by default).
    assert "Contoso Bank: 3 Mar 2025 – 5 Jan 2026, 09:30 (replaced by a newer one)" in body
    assert "Fabrikam: 5 Jan 2026, 09:30 – now (current)" in body
    bars = {bar["fact"].object: bar for row in page.context["timeline"]["predicates"] for bar in row["facts"]}
    assert bars["Porto"]["x"] == 0  # 2024-06-01, the earliest start
    assert 0 < bars["Contoso Bank"]["x"] < bars["Fabrikam"]["x"]
    assert bars["Contoso Bank"]["x"] + bars["Contoso Bank"]["width"] == bars["Fabrikam"]["x"]


@pytest.mark.parametrize("as_of, expected", [("2025-03-02 12:00", ["Porto"]),
                                             ("2025-03-03 00:00", ["Contoso Bank", "Porto"]),
                                             ("2026-01-05 09:30", ["Fabrikam", "Porto"])])
def test_facts_as_of_reads_dates_and_moments_as_the_context_does(granted, staff, as_of, expected):
    subject, _, api = granted
    employment_history(api, subject.user_id)
    _, client = staff("review_facts", "view_memory_content")
    page = client.get("/admin/review/facts/as-of/", {"user": subject.user_id, "as_of": as_of})
    assert page.status_code == 200
    assert sorted(fact.object for fact in page.context["facts"]) == expected
    if "Contoso Bank" in expected:
        assert "The person worked at Contoso Bank from 3 Mar 2025 until 5 Jan 2026" in page.content.decode()
