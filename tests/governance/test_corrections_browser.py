"""The correction walk in a real browser: the person corrects a fact and the agent's next context changes."""

import pytest

from tests.support.stack import screenshot
from tests.support.governance import seed_memory

pytestmark = pytest.mark.django_db(transaction=True)


def test_correct_a_fact_and_the_agents_context_changes_then_undo(live_server, browser_person):
    corrector = browser_person("corrector", agent_name="Desk agent")
    subject, page, api = corrector["subject"], corrector["page"], corrector["api"]
    items = seed_memory(subject=subject, agent=corrector["agent"])

    def facts() -> list[str]:
        """Return the Facts lines of the context the agent gets for its next turn."""
        response = api.post("/api/v1/context", data={"user_id": subject.user_id, "query": "Where do I work?",
                                                     "include": {"history": False}})
        assert response.status == 200
        lines = response.json()["context"].splitlines()
        return [line for line in lines[lines.index("Facts:") + 1:] if line.startswith("- ")]

    employer = lambda: [line for line in facts() if "ALPACAville" not in line]  # noqa: E731
    assert any("ALPACA Corp" in line for line in employer())

    page.goto(f"{live_server.url}/me/memory/facts/{items['facts']}/")
    page.click("a.changelink")
    page.fill("input[name=object]", "BETA Labs")
    page.fill("input[name=reason]", "I changed jobs in spring")
    page.click("input[type=submit].default")
    assert "Corrected" in page.locator(".messagelist").inner_text()
    history = page.locator("#corrections").inner_text()
    assert "ALPACA Corp" in history and "BETA Labs" in history and "applied\tyou" in history
    screenshot(page, "corrections-01-corrected")
    now = employer()
    assert any("BETA Labs" in line for line in now) and not any("ALPACA Corp" in line for line in now)

    page.click("#corrections input.undo")
    assert "Correction undone" in page.locator(".messagelist").inner_text()
    now = employer()
    assert any("ALPACA Corp" in line for line in now) and not any("BETA Labs" in line for line in now)
    screenshot(page, "corrections-02-undone")
