"""Nobody reaches another person's pages, items, exports or erasures, ids guessed included;
destructive actions need POST with a CSRF token."""

import pytest
from django.test import Client
from neomodel import db

from governance import services
from governance.models import ErasureJob, ExportJob
from memory.models import ConsentRecord, Grant

pytestmark = pytest.mark.django_db
KINDS = ["messages", "facts", "preferences", "entities", "traces"]


def _nodes(user_id):
    return db.cypher_query("MATCH (n) WHERE n.user_id = $u RETURN count(n)", {"u": user_id})[0][0][0]


def test_another_persons_items_are_not_found_like_missing_ones(person):
    alice, bob = person("ALPACA"), person("BUFFALO")
    for kind in KINDS:
        for suffix in ["", "forget/"]:
            guessed = bob["client"].get(f"/me/memory/{kind}/{alice['items'][kind]}/{suffix}")
            missing = bob["client"].get(f"/me/memory/{kind}/no-such-id/{suffix}")
            assert guessed.status_code == missing.status_code == 404, (kind, suffix)
        assert bob["client"].post(f"/me/memory/{kind}/{alice['items'][kind]}/forget/").status_code == 404
        listing = bob["client"].get(f"/me/memory/{kind}/").context["page"]["items"]
        assert alice["items"][kind] not in {item["uid"] for item in listing}
        assert bob["client"].get(f"/me/memory/{kind}/", {"q": "alpaca"}).context["page"]["items"] == []
    assert bob["client"].get(f"/me/conversations/{alice['items']['conversation']}/").status_code == 404
    assert _nodes(alice["subject"].user_id) == 12


def test_another_persons_agents_exports_and_erasures_are_not_found(person):
    alice, bob = person("ALPACA"), person("BUFFALO")
    agent_id = alice["agent"].agent_id
    assert bob["client"].post(f"/me/agents/{agent_id}/pause/", {"action": "pause"}).status_code == 404
    assert bob["client"].post(f"/me/agents/{agent_id}/revoke/").status_code == 404
    assert bob["client"].post("/me/consent/", {"category": "history", "agent": agent_id, "granted": "0"}).status_code == 404
    assert Grant.objects.get(subject=alice["subject"]).paused_at is None
    assert not ConsentRecord.objects.filter(subject=bob["subject"], agent=alice["agent"]).exists()

    export = services.export_build(job_id=services.export_request(subject=alice["subject"]).pk)
    erasure = services.erasure_request(subject=alice["subject"], scope="category", category="reasoning")
    for url in [f"/me/export/{export.public_id}/", f"/me/export/{export.public_id}/download/",
                f"/me/erasures/{erasure.public_id}/"]:
        assert bob["client"].get(url).status_code == 404, url
        assert alice["client"].get(url).status_code == 200, url
    assert bob["client"].get(f"/me/deleted/{erasure.public_id}/").status_code == 404  # not an account deletion


@pytest.mark.parametrize("url", ["/me/erase/", "/me/delete-account/", "/me/consent/history/erase/", "/me/export/",
                                 "/me/consent/", "AGENT/pause/", "AGENT/revoke/", "/me/memory/facts/FACT/forget/"])
def test_destructive_actions_need_a_csrf_token(person, url):
    p = person(client_class=Client, enforce_csrf_checks=True)
    url = url.replace("AGENT", f"/me/agents/{p['agent'].agent_id}").replace("FACT", p["items"]["facts"])
    response = p["client"].post(url, {"category": "history", "agent": "", "granted": "0", "action": "pause"})
    assert response.status_code == 403
    assert _nodes(p["subject"].user_id) == 12
    assert not ErasureJob.objects.exists() and not ExportJob.objects.exists()
    grant = Grant.objects.get(subject=p["subject"])
    assert grant.paused_at is None and grant.revoked_at is None
    assert ConsentRecord.objects.filter(subject=p["subject"], granted=False).count() == 0


@pytest.mark.parametrize("url", ["/me/agents/AGENT/pause/", "/me/memory/facts/FACT/forget/", "/me/erase/"])
def test_get_never_changes_anything(person, url):
    p = person()
    url = url.replace("AGENT", p["agent"].agent_id).replace("FACT", p["items"]["facts"])
    assert p["client"].get(url).status_code in (200, 405)
    assert _nodes(p["subject"].user_id) == 12 and not ErasureJob.objects.exists()
    assert Grant.objects.get(subject=p["subject"]).paused_at is None
