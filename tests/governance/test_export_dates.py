"""The export writes validity as the product stored it: a stated date as a day, a moment with its offset."""

import io
import json
import zipfile

import pytest
from django.test import Client

from governance import services
from governance.models import ExportJob
from tests.memory.api.test_dates import employment_history

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
