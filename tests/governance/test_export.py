"""Export: a documented zip built page by page, downloadable by its owner only, until it expires."""

import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from django.utils import timezone
from neomodel import db

from governance import selectors, services
from governance.models import ExportJob, JobStatus
from memory.models import MemoryAccess
from tests.support.survey import RAW
from wiring.celery import app

pytestmark = pytest.mark.django_db


def _export(p) -> ExportJob:
    response = p["client"].post("/me/export/")
    job = ExportJob.objects.get(subject=p["subject"])
    assert response.url == f"/me/export/{job.public_id}/"
    page = p["client"].get(response.url)
    assert page.context["refresh"] and b'http-equiv="refresh"' in page.content  # progress polls without JS
    return services.export_build(job_id=job.pk)


def _zip(response) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_export_holds_every_node_and_relationship_with_provenance_consent_and_access_log(person, monkeypatch):
    monkeypatch.setattr(services, "EXPORT_PAGE", 2)  # several pages per label
    p = person()
    MemoryAccess.objects.create(subject=p["subject"], agent=p["agent"], session_id="s1",
                                items=[{"type": "fact", "uid": p["items"]["facts"], "score": 0.9}])
    job = _export(p)
    assert job.status == JobStatus.DONE and job.items_done == job.items_total == 12
    page = p["client"].get(f"/me/export/{job.public_id}/")
    assert not page.context["refresh"] and "100%" in page.content.decode()

    archive = _zip(p["client"].get(f"/me/export/{job.public_id}/download/"))
    names = set(archive.namelist())
    assert {"README.md", "manifest.json", "relationships.json", "consent.json", "access_log.json"} <= names
    manifest = json.loads(archive.read("manifest.json"))
    assert manifest["user_id"] == p["subject"].user_id
    assert manifest["nodes"] == {"Conversation": 1, "Entity": 2, "Fact": 2, "Message": 2, "Preference": 1,
                                 "ReasoningStep": 1, "ReasoningTrace": 1, "ToolCall": 1, "User": 1}
    facts = {fact["uid"]: fact["properties"] for fact in json.loads(archive.read("nodes/Fact.json"))}
    assert facts[p["items"]["facts"]]["object"] == "ALPACA Corp"
    assert not any("embedding" in properties for properties in facts.values())
    messages = {m["uid"]: m["properties"] for m in json.loads(archive.read("nodes/Message.json"))}
    assert sorted(messages) == sorted([p["items"]["messages"], p["items"]["reply"]])

    relationships = json.loads(archive.read("relationships.json"))
    stored = db.cypher_query("MATCH (a {user_id: $u})-[r]->() RETURN count(r)", {"u": p["subject"].user_id})[0][0][0]
    assert len(relationships) == manifest["relationships"] == stored == 19
    provenance = next(r for r in relationships if r["type"] == "EXTRACTED_FROM" and r["from"] == p["items"]["facts"])
    assert (provenance["from_label"], provenance["to"], provenance["to_labels"]) == (
        "Fact", p["items"]["messages"], ["Message"])
    assert provenance["properties"]["valid_from"] == messages[p["items"]["messages"]]["created_at"]  # stated undated
    related = next(r for r in relationships if r["type"] == "RELATED_TO")
    assert (related["from"], related["to"]) == (p["items"]["entities"], p["items"]["city"])
    assert (related["properties"]["type"], related["properties"]["message_uid"]) == (
        "HEADQUARTERS_AT", p["items"]["messages"])

    consent = json.loads(archive.read("consent.json"))
    assert {(c["category"], c["granted"], c["actor"]) for c in consent} == {
        ("history", True, "you"), ("long_term", True, "you"), ("reasoning", True, "you")}
    access = json.loads(archive.read("access_log.json"))
    assert access[0]["agent"] == p["agent"].agent_id and access[0]["items"][0]["uid"] == p["items"]["facts"]
    readme = archive.read("README.md").decode()
    assert "EXTRACTED_FROM" in readme and "consent.json" in readme
    # The part a person reads: their memory in the words of their pages, with no predicate, key or id.
    readable = re.sub(r"<[^>]+>", " ", archive.read("memory.html").decode().split("</style>")[1])
    assert "ALPACA Corp" in readable and "Facts" in readable and "Who was given your memory" in readable
    assert not RAW.findall(readable) and p["subject"].user_id not in readable


def test_only_the_owner_can_reach_an_export(person, client):
    alice, bob = person("ALPACA"), person("BUFFALO")
    job = _export(alice)
    for url in [f"/me/export/{job.public_id}/", f"/me/export/{job.public_id}/download/"]:
        assert bob["client"].get(url).status_code == 404
        assert client.get(url).status_code == 302  # anonymous: sign in first
    assert bob["client"].get("/me/export/").context["exports"].count() == 0


def test_expired_exports_are_refused_and_their_files_deleted(person):
    p = person()
    job = _export(p)
    path = selectors.export_path(job=job)
    assert path.is_file()
    ExportJob.objects.filter(pk=job.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert p["client"].get(f"/me/export/{job.public_id}/download/").status_code == 404
    assert services.exports_expire() == 1
    assert not path.exists() and ExportJob.objects.get(pk=job.pk).status == JobStatus.EXPIRED


def test_workers_run_on_the_maintenance_queue_and_beat_expires_exports(settings):
    for task in ("governance.tasks.export_build_task", "governance.tasks.subject_erase_task"):
        assert app.amqp.router.route({}, task)["queue"].name == "maintenance"
    entry = settings.CELERY_BEAT_SCHEDULE["governance-exports-expire"]
    assert entry["task"] in app.tasks and settings.EXPORT_TTL_HOURS == 24
