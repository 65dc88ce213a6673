"""What an agent's own words and its tools may add to a person's memory: the person chooses per agent, staff set
the default, and every change is audited."""

import html

import pytest
from django.test import Client

from memory import services
from memory.models import Grant
from portal.models import AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def agents_page(make_subject, make_agent):
    subject = make_subject()
    agent, _ = make_agent(untrusted_writes="hold")  # the staff's default for this agent
    services.grant_create(subject=subject, agent=agent)
    page = Client()
    page.force_login(subject.account)
    return subject, agent, page


def _chosen(page, agent) -> str:
    page_html = page.get("/me/agents/").content.decode()
    select = page_html.split(f'data-testid="untrusted-writes-{agent.agent_id}"', 1)[1].split("</select>", 1)[0]
    return select.split(" selected>", 1)[1].split("<", 1)[0]


def test_the_person_sees_the_staff_default_then_their_own_choice_and_each_change_is_audited(agents_page):
    subject, agent, page = agents_page
    assert _chosen(page, agent) == "Hold it for review"

    answer = page.post(f"/me/agents/{agent.agent_id}/untrusted-writes/", {"policy": "drop"}, follow=True)
    assert "Nothing Agent" in answer.content.decode() and _chosen(page, agent) == "Keep none of it"
    assert Grant.objects.get(subject=subject, agent=agent).effective_untrusted_writes == "drop"
    page.post(f"/me/agents/{agent.agent_id}/untrusted-writes/", {"policy": "drop"})  # no change, no audit row
    events = AuditEvent.objects.filter(action="grant.untrusted_writes")
    assert [(e.before, e.after) for e in events] == [({"untrusted_writes": "hold"}, {"untrusted_writes": "drop"})]


def test_an_unknown_choice_is_refused_in_words_and_changes_nothing(agents_page):
    subject, agent, page = agents_page
    answer = page.post(f"/me/agents/{agent.agent_id}/untrusted-writes/", {"policy": "sometimes"}, follow=True)
    assert "Unknown choice 'sometimes'" in html.unescape(answer.content.decode())
    assert Grant.objects.get(subject=subject, agent=agent).untrusted_writes == ""
    assert not AuditEvent.objects.filter(action="grant.untrusted_writes").exists()
