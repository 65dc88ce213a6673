"""Corrections on "My memory" and on the reviewers' pages: correct, history, undo, proposals, the agent switch."""

import io
import json
import zipfile

import pytest

from governance import services as governance_services
from memory import selectors
from memory.models import Correction, Grant
from portal.models import AuditEvent

pytestmark = pytest.mark.django_db


def _context(p, query="Where do I work? ALPACA Corp") -> str:
    response = p["api"].post("/api/v1/context", {"user_id": p["subject"].user_id, "query": query,
                                                  "include": {"history": False}}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["context"]


def _facts(context: str) -> list[str]:
    """Return the lines of a context's Facts section."""
    lines = context.splitlines()
    start = lines.index("Facts:") + 1 if "Facts:" in lines else len(lines)
    return [line for line in lines[start:] if line.startswith("- ")]


def _fact(p) -> dict:
    return selectors.item_get(user_id=p["subject"].user_id, kind="facts", uid=p["items"]["facts"])


def test_the_person_corrects_a_fact_sees_its_history_and_undoes_it(person):
    p = person()
    client, fact = p["client"], p["items"]["facts"]
    assert "ALPACA Corp" in _context(p)
    page = client.get(f"/me/memory/facts/{fact}/")
    assert f'/me/memory/facts/{fact}/correct/' in page.content.decode()
    form = client.get(f"/me/memory/facts/{fact}/correct/")
    assert form.context["form"]["object"].initial == "ALPACA Corp"
    unchanged = client.post(f"/me/memory/facts/{fact}/correct/", {"object": "ALPACA Corp"})
    assert unchanged.status_code == 200 and "Give at least one" in unchanged.content.decode()

    done = client.post(f"/me/memory/facts/{fact}/correct/", {"object": "BETA Labs", "reason": "I moved jobs"},
                       follow=True)
    correction = Correction.objects.get(subject=p["subject"])
    assert done.redirect_chain[-1][0] == f"/me/memory/facts/{correction.version_uid}/"
    history = done.content.decode()
    assert "Corrected:" in history and "ALPACA Corp" in history and 'data-label="By">you' in history
    facts = _facts(_context(p, "Where do I work? BETA Labs ALPACA Corp"))
    employer = [line for line in facts if "ALPACAville" not in line]  # the company's own fact stays
    assert any("BETA Labs" in line for line in employer) and not any("ALPACA Corp" in line for line in employer)
    assert _fact(p)["status"] == "retracted"
    old_page = client.get(f"/me/memory/facts/{fact}/").content.decode()
    assert "Corrected version" in old_page and f"/me/memory/facts/{fact}/correct/" not in old_page

    undone = client.post(f"/me/corrections/{correction.public_id}/undo/", follow=True)
    assert undone.redirect_chain[-1][0] == f"/me/memory/facts/{fact}/"
    assert "Correction undone" in undone.content.decode() and _fact(p)["status"] == "current"
    assert "BETA Labs" not in _context(p)
    assert [e.action for e in AuditEvent.objects.filter(action__startswith="correction.").order_by("pk")] == [
        "correction.apply", "correction.undo"]


def test_a_proposal_waits_on_my_page_until_i_accept_or_reject_it(person):
    p = person()
    api, user_id = p["api"], p["subject"].user_id
    proposed = [api.post(f"/api/v1/users/{user_id}/{kind}/{p['items'][kind]}/corrections", value, format="json")
                for kind, value in (("entities", {"name": "ALPACA Corporation"}),
                                    ("preferences", {"preference": "likes ALPACA coffee"}))]
    assert [r.status_code for r in proposed] == [202, 202]
    assert "Agents proposed 2 corrections" in p["client"].get("/me/").content.decode()
    listing = p["client"].get("/me/corrections/")
    assert len(listing.context["proposed"]) == 2 and "ALPACA Corporation" in listing.content.decode()
    entity, preference = (Correction.objects.get(public_id=r.json()["correction"]) for r in proposed)
    p["client"].post(f"/me/corrections/{entity.public_id}/accept/")
    p["client"].post(f"/me/corrections/{preference.public_id}/reject/")
    assert selectors.item_get(user_id=user_id, kind="entities", uid=p["items"]["entities"])["name"] \
        == "ALPACA Corporation"
    assert selectors.item_get(user_id=user_id, kind="preferences", uid=p["items"]["preferences"])["status"] \
        == "current"
    assert p["client"].get("/me/corrections/").context["proposed"] == []
    again = p["client"].post(f"/me/corrections/{preference.public_id}/accept/", follow=True)
    assert "already decided" in again.content.decode()


def test_the_agent_switch_lets_an_agent_correct_directly(person):
    p = person()
    agent_id = p["agent"].agent_id
    assert "correct-directly-" + agent_id in p["client"].get("/me/agents/").content.decode()
    p["client"].post(f"/me/agents/{agent_id}/correct/", {"allowed": "1"})
    assert Grant.objects.get(subject=p["subject"], agent=p["agent"]).may_correct
    response = p["api"].post(f"/api/v1/users/{p['subject'].user_id}/facts/{p['items']['facts']}/corrections",
                             {"object": "GAMMA Inc"}, format="json")
    assert response.status_code == 201 and "GAMMA Inc" in _context(p, "Where do I work? GAMMA Inc")
    p["client"].post(f"/me/agents/{agent_id}/correct/", {"allowed": "0"})
    assert not Grant.objects.get(subject=p["subject"], agent=p["agent"]).may_correct
    assert [e.action for e in AuditEvent.objects.filter(action__startswith="grant.correct").order_by("pk")] == [
        "grant.correct_allow", "grant.correct_propose_only"]


def test_another_persons_item_and_correction_are_404(person):
    alice, bob = person("ALPACA"), person("BISON")
    bob_fact = bob["items"]["facts"]
    assert alice["client"].get(f"/me/memory/facts/{bob_fact}/correct/").status_code == 404
    assert alice["client"].post(f"/me/memory/facts/{bob_fact}/correct/", {"object": "x"}).status_code == 404
    proposal = bob["api"].post(f"/api/v1/users/{bob['subject'].user_id}/facts/{bob_fact}/corrections",
                               {"object": "BISON Ltd"}, format="json").json()["correction"]
    assert alice["client"].post(f"/me/corrections/{proposal}/accept/").status_code == 404
    assert alice["client"].get("/me/corrections/").context["proposed"] == []
    assert _fact(bob)["status"] == "current" and Correction.objects.get().status == "proposed"


def test_export_includes_corrections_and_erasure_removes_them(person):
    p = person()
    p["client"].post(f"/me/memory/facts/{p['items']['facts']}/correct/", {"object": "BETA Labs"})
    job = governance_services.export_build(job_id=governance_services.export_request(subject=p["subject"]).pk)
    archive = zipfile.ZipFile(io.BytesIO(b"".join(p["client"].get(f"/me/export/{job.public_id}/download/")
                                                  .streaming_content)))
    corrections = json.loads(archive.read("corrections.json"))
    assert [(c["previous"], c["value"], c["status"]) for c in corrections] == [
        ({"object": "ALPACA Corp"}, {"object": "BETA Labs"}, "applied")]

    history = governance_services.erasure_request(subject=p["subject"], scope="category", category="history")
    governance_services.subject_erase(job_id=history.pk)
    assert Correction.objects.filter(subject=p["subject"]).count() == 1  # other categories keep them
    long_term = governance_services.erasure_request(subject=p["subject"], scope="category", category="long_term")
    governance_services.subject_erase(job_id=long_term.pk)
    assert not Correction.objects.filter(subject=p["subject"]).exists()


def test_a_reviewer_corrects_from_the_fact_timeline_and_decides_proposals(person, staff):
    p = person()
    user, client = staff("review_facts", "view_memory_content")
    user_id, fact = p["subject"].user_id, p["items"]["facts"]
    timeline = client.get(f"/admin/review/facts/?user={user_id}&subject={_fact(p)['subject']}").content.decode()
    assert f"/admin/review/facts/{user_id}/{fact}/correct/" in timeline
    client.post(f"/admin/review/facts/{user_id}/{fact}/correct/", {"object": "DELTA Co"})
    correction = Correction.objects.get()
    assert correction.corrected_by == f"reviewer {user.email}" and "DELTA Co" in _context(p, "DELTA Co ALPACA")
    version = selectors.item_get(user_id=user_id, kind="facts", uid=correction.version_uid)
    assert version["status"] == "current"

    entity = p["items"]["entities"]
    proposal = p["api"].post(f"/api/v1/users/{user_id}/entities/{entity}/corrections", {"type": "OBJECT"},
                             format="json").json()["correction"]
    queue = client.get("/admin/review/corrections/")
    assert queue.context["count"] == 1 and p["user"].email in queue.content.decode()
    client.post(f"/admin/review/corrections/{proposal}/accept/")
    assert selectors.item_get(user_id=user_id, kind="entities", uid=entity)["type"] == "OBJECT"
    assert Correction.objects.get(public_id=proposal).corrected_by.endswith(f"accepted by reviewer {user.email}")
    no_content, denied = staff("review_facts")
    assert denied.get("/admin/review/corrections/").status_code == 403
