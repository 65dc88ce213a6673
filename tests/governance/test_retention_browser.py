"""Retention and where memory was used, in a real browser (Playwright driving Debian's Chromium, headless).

The person keeps their history 30 days: older turns leave the agent's context and the pages at once;
then they follow a remembered turn to the agent that was given it.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from memory import ingest
from memory import selectors as memory_selectors
from memory import services as memory_services
from tests.support.stack import screenshot

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_shorter_history_leaves_context_and_pages_and_an_item_leads_to_its_agents(live_server, browser_person):
    keeper = browser_person("keeper", agent_name="Travel agent")
    subject, page, api = keeper["subject"], keeper["page"], keeper["api"]
    now = timezone.now()

    def say(*turns):
        response = api.post("/api/v1/conversations/trip/messages", data={"user_id": subject.user_id, "messages": [
            {"role": role, "content": text, "created_at": when.isoformat()} for role, text, when in turns]})
        assert response.status == 201
        for result in response.json()["results"]:  # what the worker runs
            assert ingest.message_extract(message_uid=result["uid"], user_id=subject.user_id) == "done"

    def context():
        response = api.post("/api/v1/context", data={"user_id": subject.user_id, "session_id": "trip",
                                                     "query": "What do I eat in Kyoto?", "token_budget": 2000})
        assert response.status == 200
        return response.json()["context"]

    say(("user", "I am planning a trip to Kyoto.", now - timedelta(days=40)),
        ("assistant", "Kyoto in autumn is lovely.", now - timedelta(days=40, minutes=-1)),
        ("user", "I love ramen.", now - timedelta(days=2)),
        ("assistant", "Then try the ramen alley.", now - timedelta(days=2, minutes=-1)))
    assert "planning a trip to Kyoto" in context() and "I love ramen" in context()

    page.goto(f"{live_server.url}/me/retention/")
    page.fill("[data-testid=days-history]", "30")
    page.click("[data-testid=choose-history]")
    assert "Saved" in page.locator(".messagelist").inner_text()
    assert "since" in page.locator("tr[data-category=history] .kept").inner_text()
    screenshot(page, "retention-01-history-30-days")

    remembered = context()  # the agent's next context, through the API
    assert "planning a trip to Kyoto" not in remembered and "I love ramen" in remembered
    say(("user", "Any ramen place near the station?", now))  # the turn that context served
    memory_services.access_queue_drain()  # what the worker's Beat task runs

    conversation = memory_selectors.conversation_list(user_id=subject.user_id)[0]["uid"]
    page.goto(f"{live_server.url}/me/conversations/{conversation}/")
    table = page.locator("#messages").inner_text()
    assert "Kyoto" not in table.split("was given")[0] and "I love ramen" in table
    served = page.locator("tr.turn-context[data-turn='5']")  # three contexts for this turn, the last after the change
    assert served.count() == 3
    served.last.locator("summary").click()
    screenshot(page, "retention-02-turn-and-its-memories")
    for n in range(3):  # what is past retention is not shown even where it was given before
        assert "planning a trip" not in served.nth(n).inner_text()
    served.last.locator("a", has_text="I love ramen").click()
    page.wait_for_url("**/me/memory/messages/*/")
    uses = page.locator("#uses").inner_text()
    assert "Travel agent" in uses and "\t3\t" in uses  # given in all three contexts
    assert page.locator("#kept-until").inner_text() != ""
    screenshot(page, "retention-03-item-used-by")

    page.goto(f"{live_server.url}/me/memory/messages/")
    assert "Kyoto" not in page.locator("#items").inner_text()
