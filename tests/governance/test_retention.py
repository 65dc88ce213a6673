"""Retention: what is past it is never read (API, context, the person's pages, export) and is deleted as
erasure deletes, with what newer messages still support kept.

Messages are said in the past through the API's own `created_at`, then extracted as the worker would;
a trace's age is its start, which the API stamps, so traces expire by running retention `at` a later moment.
"""

import io
import itertools
import json
import zipfile
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from neomodel import db
from rest_framework.test import APIClient

from governance import selectors, services
from governance.models import ExportJob, JobStatus
from governance.tasks import retention_apply_task
from memory import ingest
from memory import selectors as memory_selectors
from memory import services as memory_services
from memory.models import SCOPES, Agent, Correction, RetentionChoice, RetentionPolicy
from memory.services import forgetting
from portal.exceptions import ApplicationError, NotFound
from portal.models import AuditEvent

DAY = timedelta(days=1)
KINDS = ("messages", "facts", "preferences", "entities", "traces")
_ids = itertools.count(1)


@pytest.fixture
def member(db):
    """Return a factory of a signed-in person with one agent granted and no memory yet."""

    def make() -> dict:
        n = next(_ids)
        user = get_user_model().objects.create_user(username=f"keep{n}", email=f"keep{n}@example.com",
                                                    password="a-long-passphrase-1")
        subject = memory_services.subject_get_or_create(user=user)
        agent = Agent.objects.create(agent_id=f"keep-agent-{n}", name=f"Keeper {n}", scopes=list(SCOPES))
        memory_services.grant_create(subject=subject, agent=agent, actor=user)
        client = Client()
        client.force_login(user)
        return {"user": user, "subject": subject, "agent": agent, "client": client, "api": agent_client(agent)}

    return make


def agent_client(agent: Agent) -> APIClient:
    _, secret = memory_services.agent_token_issue(agent=agent)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api


def say(p: dict, session_id: str, *turns: tuple[str, str, object]) -> list[str]:
    """Append (role, content, created_at) turns through the API, extract each as the worker would; return uids."""
    response = p["api"].post(f"/api/v1/conversations/{session_id}/messages", {
        "user_id": p["subject"].user_id,
        "messages": [{"role": role, "content": content, "created_at": when.isoformat()} for role, content, when in turns],
    }, format="json")
    assert response.status_code == 201, response.content
    uids = [result["uid"] for result in response.json()["results"]]
    for uid in uids:
        assert ingest.message_extract(message_uid=uid, user_id=p["subject"].user_id) == "done"
    return uids


def api_items(p: dict, kind: str) -> list[dict]:
    response = p["api"].get(f"/api/v1/users/{p['subject'].user_id}/{kind}/")
    assert response.status_code == 200
    return response.json()["items"]


def context(p: dict, query: str, session_id: str | None = None, api=None) -> dict:
    body = {"user_id": p["subject"].user_id, "query": query, "token_budget": 2000}
    if session_id:
        body["session_id"] = session_id
    response = (api or p["api"]).post("/api/v1/context", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def graph_mentions(word: str) -> int:
    """Count nodes, any label, with any property holding the word: what the residue check of erasure looks for."""
    rows, _ = db.cypher_query(
        "MATCH (n) WHERE any(k IN keys(n) WHERE n[k] IS :: STRING AND toLower(n[k]) CONTAINS $w) RETURN count(n)",
        {"w": word.lower()})
    return rows[0][0]


@pytest.fixture
def dana(member):
    """A person who said two things 40 days ago and repeated one of them 5 days ago."""

    p = member()
    now = timezone.now()
    p["old"] = say(p, "chat", ("user", "I work at Zebra Corp. I like quince tea.", now - 40 * DAY),
                   ("assistant", "Noted, quince tea it is.", now - 40 * DAY + timedelta(minutes=1)))
    p["new"] = say(p, "chat", ("user", "I work at Zebra Corp.", now - 5 * DAY),
                   ("assistant", "Still at Zebra Corp, good.", now - 5 * DAY + timedelta(minutes=1)))
    return p


def test_the_shortest_retention_holds_staff_per_agent_and_the_person(member):
    p = member()
    stricter = Agent.objects.create(agent_id="strict-agent", name="Strict", scopes=list(SCOPES))
    RetentionPolicy.objects.create(category="history", days=90)
    RetentionPolicy.objects.create(category="history", agent=stricter, days=30)
    services.retention_choose(subject=p["subject"], category="history", days=60, actor=p["user"])
    assert memory_selectors.retention_days(subject=p["subject"], agent=stricter)["history"] == 30
    assert memory_selectors.retention_days(subject=p["subject"], agent=p["agent"])["history"] == 60
    assert memory_selectors.retention_days(subject=p["subject"], agent=None) == {
        "history": 60, "long_term": None, "reasoning": None}
    at = timezone.now()
    assert memory_selectors.retention_cutoffs(subject=p["subject"], agent=stricter, at=at)["history"] == at - 30 * DAY

    looser = RetentionPolicy(category="history", agent=p["agent"], days=120)
    with pytest.raises(ValidationError, match="stricter"):
        looser.full_clean()
    with pytest.raises(ApplicationError, match="fewer than the 90 days"):
        services.retention_choose(subject=p["subject"], category="history", days=90, actor=p["user"])
    with pytest.raises(ApplicationError, match="Unknown category"):
        services.retention_choose(subject=p["subject"], category="gossip", days=3, actor=p["user"])
    assert RetentionChoice.objects.get(subject=p["subject"]).days == 60
    assert AuditEvent.objects.filter(action="retention.choose", after={"days": 60}).count() == 1


def test_an_item_exactly_at_the_limit_is_kept_and_one_a_second_older_is_not(member):
    p = member()
    at = timezone.now().replace(microsecond=0)
    older, exact = say(p, "edge", ("user", "The pelican flew at dawn.", at - 30 * DAY - timedelta(seconds=1)),
                       ("user", "The heron flew at noon.", at - 30 * DAY))
    services.retention_choose(subject=p["subject"], category="history", days=30, actor=p["user"])
    cutoffs = memory_selectors.retention_cutoffs(subject=p["subject"], agent=None, at=at)
    kept = {m["uid"] for m in memory_selectors.item_list(user_id=p["subject"].user_id, kind="messages",
                                                          cutoffs=cutoffs)["items"]}
    assert exact in kept and older not in kept
    assert selectors.retention_expired(subject=p["subject"], at=at)["messages"] == 1
    services.retention_apply(subject=p["subject"], at=at)
    assert memory_selectors.item_get(user_id=p["subject"].user_id, kind="messages", uid=exact, cutoffs=cutoffs)
    with pytest.raises(NotFound):
        memory_selectors.item_get(user_id=p["subject"].user_id, kind="messages", uid=older, cutoffs={
            "history": None, "long_term": None, "reasoning": None})


def test_expired_memory_is_in_no_read_path_and_what_newer_messages_say_stays(dana):
    p, user_id = dana, dana["subject"].user_id
    assert "quince" in context(p, "What tea do I like?")["context"]
    services.retention_choose(subject=p["subject"], category="history", days=30, actor=p["user"])

    # Invisible at once, before anything is deleted: API lists and gets, context, search, the person's pages.
    assert {m["uid"] for m in api_items(p, "messages")} == set(p["new"])
    assert p["api"].get(f"/api/v1/users/{user_id}/messages/{p['old'][0]}").status_code == 404
    assert "Zebra Corp" in [f["object"] for f in api_items(p, "facts")]
    assert not any("quince" in pref["preference"] for pref in api_items(p, "preferences"))
    found = context(p, "What tea do I like? Where do I work?", session_id="chat")
    assert "quince" not in found["context"] and "Zebra Corp" in found["context"]
    assert not {item["id"] for item in found["items"]} & set(p["old"])
    assert not memory_selectors.item_search(user_id=user_id, kind="messages", text="quince")
    conversation = memory_selectors.conversation_list(user_id=user_id)[0]
    assert conversation["messages"] == 2
    for url in ("/me/memory/messages/?q=quince", "/me/memory/preferences/",
                f"/me/conversations/{conversation['uid']}/"):
        page = p["client"].get(url)
        assert page.status_code == 200 and b"quince tea" not in page.content
    assert p["client"].get(f"/me/memory/messages/{p['old'][0]}/").status_code == 404

    fact = next(f for f in memory_selectors.item_list(user_id=user_id, kind="facts")["items"]
                if f["object"] == "Zebra Corp")
    assert fact["kept_since"] == memory_selectors.item_get(user_id=user_id, kind="messages", uid=p["new"][0])[
        "created_at"]

    expired = selectors.retention_expired(subject=p["subject"])
    assert expired["messages"] == 2 and expired["preferences"] == 1 and not expired["facts"] + expired["traces"]
    mentions = graph_mentions("quince")
    out = io.StringIO()
    call_command("retention_apply", "--dry-run", stdout=out)
    assert f"{p['user'].email}: 2 messages, 1 preferences" in out.getvalue()
    assert graph_mentions("quince") == mentions >= 3  # the dry run deleted nothing

    done = services.retention_apply(subject=p["subject"])
    assert done["residue"] == dict.fromkeys(KINDS, 0)
    assert done["deleted"] == expired
    assert graph_mentions("quince") == 0
    # The fact the newer message repeats stays, its expired provenance gone, valid since the newer statement.
    rows, _ = db.cypher_query("MATCH (f:Fact {user_id: $u, object: 'Zebra Corp'})-[:EXTRACTED_FROM]->(m:Message) "
                              "RETURN collect(m.uid), f.status", {"u": user_id})
    assert rows == [[[p["new"][0]], "current"]]
    chain, _ = db.cypher_query("MATCH (:Conversation {user_id: $u})-[:FIRST_MESSAGE]->(m) RETURN m.uid",
                               {"u": user_id})
    assert chain == [[p["new"][0]]]
    assert AuditEvent.objects.filter(action="retention.apply", after__deleted__messages=2).exists()


def test_a_shorter_retention_chosen_later_hides_at_once_and_export_never_holds_it(dana):
    p = dana
    job = services.export_request(subject=p["subject"])
    services.export_build(job_id=job.pk)
    with zipfile.ZipFile(selectors.export_path(job=ExportJob.objects.get(pk=job.pk))) as archive:
        assert "quince" in archive.read("nodes/Message.json").decode()

    services.retention_choose(subject=p["subject"], category="history", days=30, actor=p["user"])
    assert len(api_items(p, "messages")) == 2
    services.retention_apply(subject=p["subject"])
    assert ExportJob.objects.get(pk=job.pk).status == JobStatus.EXPIRED  # it held what is now gone
    later = services.export_request(subject=p["subject"])
    services.export_build(job_id=later.pk)
    with zipfile.ZipFile(selectors.export_path(job=ExportJob.objects.get(pk=later.pk))) as archive:
        assert not any("quince" in archive.read(name).decode().lower() for name in archive.namelist()
                       if name.startswith("nodes/"))
        assert len(json.loads(archive.read("nodes/Message.json"))) == 2


def test_an_agent_with_a_stricter_retention_sees_less_and_nothing_is_deleted_for_it(dana, member):
    p = dana
    RetentionPolicy.objects.create(category="history", days=365)
    RetentionPolicy.objects.create(category="history", agent=p["agent"], days=30)
    other = Agent.objects.create(agent_id="lenient", name="Lenient", scopes=list(SCOPES))
    memory_services.grant_create(subject=p["subject"], agent=other)
    lenient = agent_client(other)

    assert "quince" not in context(p, "What tea do I like?")["context"]
    assert len(api_items(p, "messages")) == 2
    assert "quince" in context(p, "What tea do I like?", api=lenient)["context"]
    assert len(memory_selectors.item_list(user_id=p["subject"].user_id, kind="messages")["items"]) == 4
    assert selectors.retention_expired(subject=p["subject"]) == dict.fromkeys(KINDS, 0)
    assert services.retention_apply(subject=p["subject"])["deleted"] == dict.fromkeys(KINDS, 0)

    # Another person's memory is never touched by this person's retention.
    q = member()
    said = say(q, "chat", ("user", "I like quince tea.", timezone.now() - 40 * DAY))
    services.retention_choose(subject=p["subject"], category="history", days=1, actor=p["user"])
    services.retention_apply(subject=p["subject"], at=timezone.now() + 2 * DAY)
    assert [m["uid"] for m in memory_selectors.item_list(user_id=q["subject"].user_id, kind="messages")["items"]] \
        == said
    assert memory_selectors.item_list(user_id=p["subject"].user_id, kind="messages")["items"] == []


def test_traces_expire_with_their_steps_and_empty_conversations_go(person):
    p = person()  # a conversation, its memory and a trace with a step and a tool call
    services.retention_choose(subject=p["subject"], category="reasoning", days=1, actor=p["user"])
    services.retention_choose(subject=p["subject"], category="history", days=1, actor=p["user"])
    later = timezone.now() + 2 * DAY
    assert selectors.retention_expired(subject=p["subject"], at=later)["traces"] == 1
    assert api_items(p, "traces")  # not yet past it
    done = services.retention_apply(subject=p["subject"], at=later)
    assert done["deleted"]["traces"] == 3  # the trace, its step and its tool call
    assert sum(done["residue"].values()) == 0
    rows, _ = db.cypher_query("MATCH (n {user_id: $u}) RETURN labels(n)[0] AS label ORDER BY label",
                              {"u": p["subject"].user_id})
    assert rows == [["User"]]


def test_retention_deletes_batch_after_batch_until_one_comes_back_short(person, monkeypatch):
    monkeypatch.setattr(forgetting, "RETENTION_BATCH", 1)  # one item a batch: each kind takes several
    monkeypatch.setattr(services, "ERASE_PASSES", 1)  # and one pass: the batches alone must delete it all
    p = person()
    for category in ("history", "long_term", "reasoning"):
        services.retention_choose(subject=p["subject"], category=category, days=1, actor=p["user"])
    done = services.retention_apply(subject=p["subject"], at=timezone.now() + 2 * DAY)
    assert done["deleted"]["messages"] == 2 and done["deleted"]["traces"] == 3 and done["deleted"]["entities"] >= 2
    assert sum(done["residue"].values()) == 0
    rows, _ = db.cypher_query("MATCH (n {user_id: $u}) RETURN labels(n)[0]", {"u": p["subject"].user_id})
    assert rows == [["User"]]


def test_a_corrected_item_past_retention_goes_with_its_corrections(member):
    p = member()
    say(p, "chat", ("user", "I like quince tea.", timezone.now() - 40 * DAY))
    [preference] = memory_selectors.item_list(user_id=p["subject"].user_id, kind="preferences")["items"]
    memory_services.correction_create(subject=p["subject"], kind="preferences", uid=preference["uid"],
                                      value={"preference": "likes plum tea"}, actor=p["user"])
    assert "plum" in context(p, "What tea do I like?")["context"]
    services.retention_choose(subject=p["subject"], category="history", days=30, actor=p["user"])
    assert "plum" not in context(p, "What tea do I like?")["context"]
    done = services.retention_apply(subject=p["subject"])
    assert done["deleted"]["preferences"] == 2 and sum(done["residue"].values()) == 0  # the version and the wrong one
    assert not Correction.objects.filter(subject=p["subject"]).exists()
    assert graph_mentions("plum") == graph_mentions("quince") == 0


def test_staff_set_the_default_and_a_stricter_one_per_agent_on_the_admin_site(member):
    p = member()
    admin = get_user_model().objects.create_superuser(username="root", email="root@example.com", password="x-long-pw-1")
    client = Client()
    client.force_login(admin)
    add = "/admin/memory/retentionpolicy/add/"
    assert client.post(add, {"category": "history", "agent": "", "days": "90"}).status_code == 302
    refused = client.post(add, {"category": "history", "agent": p["agent"].pk, "days": "120"})
    assert refused.status_code == 200 and b"may only be stricter than the default (90 days)" in refused.content
    assert client.post(add, {"category": "history", "agent": p["agent"].pk, "days": "7"}).status_code == 302
    assert memory_selectors.retention_days(subject=p["subject"], agent=p["agent"])["history"] == 7
    assert list(AuditEvent.objects.filter(action="retention.policy").order_by("pk").values_list("target_id", "after__days")) == [
        ("history:*", 90), (f"history:{p['agent'].agent_id}", 7)]
    page = p["client"].get("/me/retention/").content.decode()
    assert "90 days" in page


def test_the_beat_run_covers_whom_retention_applies_to_and_its_task_applies_it(member):
    chose, other = member(), member()
    said = say(chose, "chat", ("user", "I like quince tea.", timezone.now() - 40 * DAY))
    services.retention_choose(subject=chose["subject"], category="history", days=30, actor=chose["user"])
    assert list(selectors.retention_subjects()) == [chose["subject"]]
    RetentionPolicy.objects.create(category="reasoning", days=365)
    assert list(selectors.retention_subjects()) == [chose["subject"], other["subject"]]
    retention_apply_task.apply(args=[chose["subject"].pk]).get()  # what the worker runs for each
    with pytest.raises(NotFound):
        memory_selectors.item_get(user_id=chose["subject"].user_id, kind="messages", uid=said[0],
                                  cutoffs=dict.fromkeys(("history", "long_term", "reasoning")))
