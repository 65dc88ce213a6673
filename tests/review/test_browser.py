"""The staff review pages in a real browser: Playwright driving Debian's Chromium, headless.

Memory is written through the API with explicit entities and facts, so resolution and supersession
are deterministic; extraction runs in the test (what the worker would run), not in a worker.
"""

import io

import pytest
from django.core.management import call_command
from neomodel import db

from memory import ingest
from tests.support.stack import screenshot
from tests.support.governance import seed_memory
from tests.support.api import same_as, say
from tests.support.review import ALL

pytestmark = pytest.mark.django_db(transaction=True)


def _context(api, user_id):
    response = api.post("/api/v1/context", {"user_id": user_id, "query": "What is the priority of Ticket_7?",
                                            "include": {"history": False}}, format="json")
    return response.status_code, response.json().get("context", "")


def test_merge_undo_reject_revert_trace_and_token(live_server, browser_sign_in, granted, api_for):
    subject, agent, api = granted
    user = subject.user_id
    say(api, user, "Met Jonathan Smith and Anna Berg.",
        entities=[{"name": "Jonathan Smith", "type": "PERSON"}, {"name": "Anna Berg", "type": "PERSON"}])
    say(api, user, "Jonathon Smith and Anna Berger called.",
        entities=[{"name": "Jonathon Smith", "type": "PERSON"}, {"name": "Anna Berger", "type": "PERSON"}])
    for text, priority in [("Ticket 7 is urgent.", "high"), ("Bumped it.", "critical")]:
        say(api, user, text, facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": priority}])
    seed_memory(subject=subject, agent=agent)
    _, page = browser_sign_in("reviewer", next="/admin/review/merges/", permissions=ALL, is_staff=True)
    messages = lambda: page.locator(".messagelist").inner_text()  # noqa: E731

    assert "2 in all" in page.locator(".paginator").inner_text()
    screenshot(page, "11-merge-queue")

    page.click("tr[data-pair='Jonathon Smith'] button.approve")
    assert "Approved 1 merge" in messages()
    assert same_as(user)["Jonathon Smith"][0] == "confirmed"
    page.goto(f"{live_server.url}/admin/review/merges/decided/")
    page.click("tr[data-pair='Jonathon Smith'] a.undo")
    page.click("input[value='Yes, undo the merge']")
    assert "Merge undone" in messages()
    assert same_as(user)["Jonathon Smith"][0] == "rejected"

    page.goto(f"{live_server.url}/admin/review/merges/")
    page.click("tr[data-pair='Anna Berger'] button.reject")
    assert "Rejected 1 merge" in messages()
    mentioning, _ = db.cypher_query("MATCH (m:Message {user_id: $u}) WHERE m.content CONTAINS 'Smith' RETURN m.uid",
                                    {"u": user})
    assert len(mentioning) == 2
    call_command("reextract", user=user, status="done", stdout=io.StringIO())
    for (uid,) in mentioning:
        assert ingest.message_extract(message_uid=uid, user_id=user) == "done"
    page.reload()
    assert "No pending proposals." in page.locator("#proposals").inner_text()
    assert {status for status, *_ in same_as(user).values()} == {"rejected"}

    assert "critical" in _context(api, user)[1]
    page.goto(f"{live_server.url}/admin/review/facts/?user={subject.account.email}&subject=Ticket_7")
    assert page.locator(".timeline rect.bar").count() == 2
    screenshot(page, "12-fact-timeline")
    page.click("a.revert")
    page.click("input[value='Yes, revert']")
    assert "Reverted" in messages()
    status, context = _context(api, user)
    assert status == 200 and "high" in context and "critical" not in context

    page.goto(f"{live_server.url}/admin/review/traces/?user={user}")
    page.click("#traces a")
    page.wait_for_selector("#trace-tree .tool-call")
    assert "search ALPACA" in page.locator("#trace-tree").inner_text()
    screenshot(page, "13-trace-tree")

    page.goto(f"{live_server.url}/admin/memory/agent/{agent.pk}/change/")
    page.click("#issue-token")
    page.fill("input[name=name]", "laptop")
    page.click("input[value='Issue the token']")
    issued = api_for(page.locator("#secret").inner_text().strip())
    assert _context(issued, user)[0] == 200
    page.click("text=Done")
    page.click("#tokens tr:has-text('laptop') a.deletelink")
    page.click("input[value='Yes, revoke it']")
    assert "revoked" in messages()
    assert _context(issued, user)[0] == 401
    assert _context(api, user)[0] == 200
