"""The person's own pages and export over validity as the product stores it: a stated date and a moment."""

import io
import json
import zipfile

import pytest
from django.test import Client

from governance import services
from governance.models import ExportJob
from memory.selectors import item_list
from tests.support.api import employment_history

pytestmark = pytest.mark.django_db


def test_the_export_holds_stated_dates_and_moments(granted):
    subject, _, api = granted
    employment_history(api, subject.user_id)
    person = Client()
    person.force_login(subject.account)
    person.post("/me/export/")
    job = services.export_build(job_id=ExportJob.objects.get(subject=subject).pk)
    download = person.get(f"/me/export/{job.public_id}/download/")
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    facts = {f["properties"]["object"]: f["properties"] for f in json.loads(archive.read("nodes/Fact.json"))}
    assert (facts["Contoso Bank"]["valid_from"], facts["Contoso Bank"]["valid_until"]) == (
        "2025-03-03", "2026-01-05T09:30:00+00:00")
    assert facts["Fabrikam"]["valid_from"] == "2026-01-05T09:30:00+00:00" and "valid_until" not in facts["Fabrikam"]
    assert facts["Porto"]["valid_from"] == "2024-06-01"
    statements = [r for r in json.loads(archive.read("relationships.json")) if r["type"] == "EXTRACTED_FROM"
                  and r["from_label"] == "Fact"]
    assert {r["properties"].get("valid_from") for r in statements} >= {"2025-03-03", "2024-06-01"}


def test_the_fact_pages_show_a_stated_date_and_a_moment(granted):
    subject, _, api = granted
    employment_history(api, subject.user_id)
    person = Client()
    person.force_login(subject.account)
    listing = person.get("/me/memory/facts/")
    assert listing.status_code == 200 and "Contoso Bank" in listing.content.decode()
    facts = {f["object"]: f["uid"] for f in item_list(user_id=subject.user_id, kind="facts")["items"]}
    detail = person.get(f"/me/memory/facts/{facts['Contoso Bank']}/")
    shown = dict(detail.context["fields"])
    assert detail.status_code == 200 and (shown["valid_from"].isoformat(), shown["valid_until"].isoformat()) == (
        "2025-03-03", "2026-01-05T09:30:00+00:00")
    assert person.get("/me/memory/facts/", {"q": "fabrikam"}).status_code == 200
