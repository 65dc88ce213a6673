"""The self-service flows in a real browser: Playwright driving Debian's Chromium, headless.

The export and erasure workers are run by calling the services their Celery tasks call, from the
test, while the page polls (meta refresh) until the result shows: no worker process has to share
the test database, and the walk stays well under a minute.
"""

import io
import json
import zipfile
from pathlib import Path

import pytest

from governance import services
from governance.models import ErasureJob, ExportJob
from memory import services as memory_services
from tests.support.stack import screenshot
from tests.support.governance import seed_memory

pytestmark = pytest.mark.django_db(transaction=True)


def test_sign_in_consent_pause_export_forget_erase(live_server, browser_person):
    walker = browser_person("walker", agent_name="Travel agent")  # a person lands on "My memory"
    subject, page, api = walker["subject"], walker["page"], walker["api"]
    items = seed_memory(subject=subject, agent=walker["agent"])

    def append(text):
        return api.post("/api/v1/conversations/trip/messages", data={
            "user_id": subject.user_id, "messages": [{"role": "user", "content": text}]}).json()

    def context():
        return api.post("/api/v1/context", data={"user_id": subject.user_id, "query": "Where do I work? ALPACA"})

    assert context().status == 200  # fills the access log
    page.goto(f"{live_server.url}/me/")
    assert page.locator("#counts").inner_text().count("\t") >= 6
    screenshot(page, "01-overview")

    page.goto(f"{live_server.url}/me/consent/")
    page.click("[data-testid=withdraw-history-travel-agent]")
    page.wait_for_url("**/me/consent/history/erase/")
    screenshot(page, "02-consent-withdrawn-offer-erase")
    refused = append("I am flying to Lisbon.")
    assert refused["stored"] == 0 and refused["results"][0]["reason"] == "consent_withdrawn"
    page.click("text=No, keep what is stored")
    page.click("[data-testid=grant-history-travel-agent]")
    assert "granted for Travel agent" in page.locator(".messagelist").inner_text()
    assert append("I am flying to Lisbon.")["stored"] == 1
    screenshot(page, "03-consent-ledger")

    page.goto(f"{live_server.url}/me/agents/")
    page.click("[data-testid=pause-travel-agent]")
    assert "paused" in page.locator(".messagelist").inner_text()
    screenshot(page, "04-agent-paused")
    paused = context()
    assert paused.status == 403 and paused.json()["extra"]["paused"] is True
    page.click("[data-testid=resume-travel-agent]")
    assert context().status == 200

    page.goto(f"{live_server.url}/me/export/")
    page.click("input[value='Export my memory']")
    page.wait_for_url("**/me/export/*/")
    services.export_build(job_id=ExportJob.objects.get(subject=subject).pk)  # what the worker runs
    page.wait_for_selector("#download")  # the page refreshed itself
    screenshot(page, "05-export-ready")
    with page.expect_download() as download:
        page.click("#download")
    archive = zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert json.loads(archive.read("manifest.json"))["user_id"] == subject.user_id

    page.goto(f"{live_server.url}/me/memory/entities/{items['entities']}/")
    page.wait_for_selector(".neighbourhood-drawing svg")
    screenshot(page, "06-entity-neighbourhood")
    page.goto(f"{live_server.url}/me/memory/facts/{items['facts']}/forget/")
    screenshot(page, "07-forget-confirmation")
    page.click("input[value='Yes, forget it']")
    assert "Forgotten" in page.locator(".messagelist").inner_text()
    assert "EMPLOYED_BY" not in page.locator("#items").inner_text()

    memory_services.access_queue_drain()  # what the worker's Beat task runs
    page.goto(f"{live_server.url}/me/access/")
    assert "Travel agent" in page.locator("#accesses").inner_text()
    screenshot(page, "08-access-log")

    page.goto(f"{live_server.url}/me/erase/")
    screenshot(page, "09-erase-confirmation")
    page.click("input[value='Yes, erase my memory']")
    page.wait_for_url("**/me/erasures/*/")
    services.subject_erase(job_id=ErasureJob.objects.get(user_id_digest__isnull=False).pk)
    page.wait_for_selector("#tombstone")
    assert page.locator("#residue-total").inner_text() == "nothing left anywhere"
    screenshot(page, "10-erasure-tombstone")
