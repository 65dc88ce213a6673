"""Merge review: the queue with its evidence, approve, reject, bulk, undo restoring exactly, audit rows."""

import io

import pytest
from django.core.management import call_command
from neomodel import db

from memory import ingest
from memory.selectors import item_list
from review import selectors, views
from portal.models import AuditEvent
from tests.support.api import same_as
from tests.support.review import ALL

pytestmark = pytest.mark.django_db


def _key(proposals, name):
    _, from_uid, into_uid = proposals["pairs"][name]
    return f"{proposals['subject'].user_id}|{from_uid}>{into_uid}"


def _snapshot(user_id, uids):
    """Return both entities' properties and every relationship touching them, SAME_AS aside."""
    nodes, _ = db.cypher_query("MATCH (e:Entity {user_id: $u}) WHERE e.uid IN $uids "
                               "RETURN e.uid, properties(e) ORDER BY e.uid", {"u": user_id, "uids": uids})
    rels, _ = db.cypher_query(
        "MATCH (e:Entity {user_id: $u})-[r]-(o) WHERE e.uid IN $uids AND type(r) <> 'SAME_AS' "
        "RETURN e.uid, type(r), startNode(r) = e, o.uid, properties(r) ORDER BY e.uid, type(r), o.uid",
        {"u": user_id, "uids": uids})
    return [[uid, {k: v for k, v in props.items() if k != "embedding"}] for uid, props in nodes], rels


def test_queue_shows_scores_entities_aliases_and_the_mention_in_context(proposals, staff):
    _, client = staff("review_merges", "view_memory_content")
    page = client.get("/admin/review/merges/")
    assert page.status_code == 200 and page.context["count"] == 2
    body = page.content.decode()
    assert "Jonathon Smith" in body and "Jonathan Smith" in body and "PERSON" in body
    assert "fuzzy" in body and "embedding" in body
    assert '<mark class="mention">Anna Berger</mark>' in body
    viewed = AuditEvent.objects.filter(action="memory.view", target_type="merge_queue")
    assert viewed.count() == 1


def test_filters_narrow_the_queue(proposals, staff):
    _, client = staff("review_merges", "view_memory_content")
    assert client.get("/admin/review/merges/?type=ORGANIZATION").context["count"] == 0
    assert client.get("/admin/review/merges/?type=PERSON&age=day").context["count"] == 2
    assert client.get("/admin/review/merges/?age=older-week").context["count"] == 0
    user = proposals["subject"].account.email
    assert client.get(f"/admin/review/merges/?user={user}").context["count"] == 2
    assert client.get("/admin/review/merges/?user=someone-else").context["count"] == 0
    bands = sum(client.get(f"/admin/review/merges/?band={b}").context["count"] for b in ("high", "middle", "low"))
    assert bands == 2


def test_the_queue_pages_keep_its_filters(proposals, staff, make_subject, monkeypatch):
    monkeypatch.setattr(views, "PER_PAGE", 1)  # the two proposals on two pages
    _, client = staff("review_merges", "view_memory_content")
    email = proposals["subject"].account.email
    first = client.get(f"/admin/review/merges/?user={email}&type=PERSON")
    assert (first.context["count"], first.context["page"], first.context["pages"]) == (2, 1, 2)
    query = f"user={email.replace('@', '%40')}&amp;type=PERSON"
    assert f'href="?{query}&amp;page=2" id="next-page"' in first.content.decode()
    second = client.get(f"/admin/review/merges/?user={email}&type=PERSON&page=2")
    assert f'href="?{query}&amp;page=1">previous' in second.content.decode()
    assert {row["from"].name for row in first.context["rows"] + second.context["rows"]} == set(proposals["pairs"])
    assert client.get(f"/admin/review/merges/?user={make_subject().account.email}").context["count"] == 0


def test_approve_then_undo_restores_both_entities_exactly(proposals, staff):
    user, client = staff("review_merges", "view_memory_content")
    user_id = proposals["subject"].user_id
    _, from_uid, into_uid = proposals["pairs"]["Jonathon Smith"]
    before = _snapshot(user_id, [from_uid, into_uid])

    client.post("/admin/review/merges/approve/", {"decide": _key(proposals, "Jonathon Smith")})
    assert same_as(user_id)["Jonathon Smith"][0] == "confirmed"
    merged = dict(_snapshot(user_id, [from_uid, into_uid])[0])
    assert merged[into_uid]["aliases"] == ["Jonathon Smith"]
    assert {kind for _, kind, *_ in before[1]} == {"MENTIONS", "RELATED_TO", "ABOUT"}
    between = sorted((uid, outgoing) for uid, kind, outgoing, other, _ in before[1]
                     if kind == "RELATED_TO" and {uid, other} == {from_uid, into_uid})
    assert between == sorted([(from_uid, True), (into_uid, False)])  # "Jonathon Smith ... met Jonathan Smith"

    undo = f"/admin/review/merges/{user_id}/{from_uid}/{into_uid}/undo/"
    assert client.get(undo).status_code == 200 and same_as(user_id)["Jonathon Smith"][0] == "confirmed"
    client.post(undo)
    assert _snapshot(user_id, [from_uid, into_uid]) == before
    assert same_as(user_id)["Jonathon Smith"][0] == "rejected"
    events = list(AuditEvent.objects.filter(action__startswith="merge.").order_by("pk")
                  .values_list("action", "actor", "before", "after"))
    assert [(a, actor) for a, actor, *_ in events] == [("merge.approve", user.pk), ("merge.undo", user.pk)]
    assert events[0][2]["status"] == "pending" and events[0][3] == {**events[0][3], "status": "confirmed",
                                                                     "aliases_added": 1}
    assert events[1][2]["status"] == "confirmed" and events[1][3]["status"] == "rejected"


def test_bulk_reject_and_a_rejected_pair_is_not_proposed_again(extracted, staff):
    proposals = extracted
    _, client = staff("review_merges", "view_memory_content")
    user_id = proposals["subject"].user_id
    response = client.post("/admin/review/merges/reject/", {"pair": [
        _key(proposals, "Jonathon Smith"), _key(proposals, "Anna Berger")]}, follow=True)
    assert "Rejected 2 merges" in response.content.decode()
    assert AuditEvent.objects.filter(action="merge.reject").count() == 2
    call_command("reextract", user=user_id, status="done", stdout=io.StringIO())
    for message in item_list(user_id=user_id, kind="messages")["items"]:
        assert ingest.message_extract(message_uid=message["uid"], user_id=user_id) == "done"
    assert {status for status, *_ in same_as(user_id).values()} == {"rejected"}
    assert client.get("/admin/review/merges/").context["count"] == 0
    decided = client.get("/admin/review/merges/decided/").content.decode()
    assert "Anna Berger" in decided and "Undo</a>" not in decided


@pytest.mark.parametrize("perms", [[], ["review_merges"], ["view_memory_content"]])
def test_merge_pages_refuse_staff_without_both_permissions(proposals, staff, perms):
    _, client = staff(*perms)
    user_id = proposals["subject"].user_id
    _, from_uid, into_uid = proposals["pairs"]["Jonathon Smith"]
    assert client.get("/admin/review/merges/").status_code == 403
    assert client.get("/admin/review/merges/decided/").status_code == 403
    assert client.post("/admin/review/merges/approve/", {"decide": _key(proposals, "Jonathon Smith")}
                       ).status_code == 403
    if "review_merges" not in perms:
        assert client.post(f"/admin/review/merges/{user_id}/{from_uid}/{into_uid}/undo/").status_code == 403
    assert same_as(user_id)["Jonathon Smith"][0] == "pending"
    assert not AuditEvent.objects.filter(action__startswith="merge.").exists()


def test_anonymous_and_non_staff_are_sent_to_sign_in(client, django_user_model):
    for url in ["/admin/review/", "/admin/review/merges/", "/admin/review/facts/", "/admin/review/traces/",
                "/admin/review/audit/", "/admin/governance/erasurejob/request/", "/admin/memory/agent/"]:
        response = client.get(url)
        assert response.status_code == 302 and "login" in response.url, url
    person = django_user_model.objects.create_user(username="p", email="p@example.com", password="x-long-pass-1")
    client.force_login(person)
    assert client.get("/admin/review/merges/").status_code == 302


def test_review_index_lists_only_permitted_pages(staff):
    _, client = staff("manage_agents")
    body = client.get("/admin/review/").content.decode()
    assert "Agents and tokens" in body and "Merge proposals" not in body
    _, everything = staff(*ALL)
    body = everything.get("/admin/review/").content.decode()
    assert all(name in body for name in ["Merge proposals", "Superseded facts", "Reasoning traces", "Audit log"])


def test_queue_pages_newest_first_across_subjects_and_counts_only_pending():
    # Hand-written: proposals made hours apart, where the product stamps each with the time it writes it.
    db.cypher_query("""
        UNWIND $rows AS row
        CREATE (a:Entity {uid: row[0] + '-a', user_id: row[1], name: row[0], type: 'PERSON', aliases: []})
        CREATE (b:Entity {uid: row[0] + '-b', user_id: row[1], name: row[0] + 's', type: 'PERSON', aliases: []})
        CREATE (a)-[:SAME_AS {status: row[2], confidence: 0.8, created_at: datetime() - duration({hours: row[3]})}]->(b)
        """, {"rows": [["oldest", "u1", "pending", 30], ["newest", "u2", "pending", 1], ["middle", "u1", "pending", 5],
                       ["decided", "u2", "auto", 0], ["refused", "u1", "rejected", 2]]})
    first = selectors.merge_proposal_page(user_id=None, per_page=2)
    second = selectors.merge_proposal_page(user_id=None, page=2, per_page=2)
    assert first["count"] == second["count"] == 3
    assert [r["from"].name for r in first["rows"] + second["rows"]] == ["newest", "middle", "oldest"]
    assert selectors.merge_proposal_page(user_id=None, age="day")["count"] == 2
