"""A graph shared with another application: every page that browses memory nodes shows them when they carry a label
of that application's beside the portal's own (issue 41 item 7)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from neomodel import db

from memory.kinds import BY_NAME as KINDS
from memory.selectors import item_list
from tests.support.api import say
from tests.support.boundaries import STAFF, page_kwargs, patterns
from tests.support.stack import MARKER

pytestmark = pytest.mark.django_db


def test_every_browse_page_shows_memory_nodes_that_carry_another_applications_label(people, granted):
    alice, bob = people["alice"], people["bob"]
    carol, _, api = granted
    say(api, carol.user_id, "Jonathan Smith met Anna Berg.")
    say(api, carol.user_id, "Jonathon Smith and Anna Berger met Jonathan Smith.")  # a merge to review
    # Hand-written: the portal never labels a node so. Another application sharing the database (or a graph
    # neo4j-agent-memory wrote) may, and each node then has one label more than the portal's classes.
    db.cypher_query(f"MATCH (n) WHERE NOT n:{MARKER} SET n:OtherApplication")

    person = Client(raise_request_exception=False)
    person.force_login(alice["subject"].account)
    root = get_user_model().objects.create_superuser(username="root", email="root@example.com", password="x-pass-1")
    reviewer = Client(raise_request_exception=False)
    reviewer.force_login(root)
    values = {"user_id": bob["subject"].user_id, "uid": bob["fact"], "from_uid": "x", "into_uid": "x",
              "public_id": bob["erasure"], "decision": "approve"}
    pages = {reverse(name, kwargs=page_kwargs(name, alice)): person for name in patterns("governance")
             if name not in ("governance:account_delete", "governance:account_deleted")}
    pages |= {reverse(f"admin:{name}", kwargs={key: values[key] for key in STAFF[name].pattern.converters}): reviewer
              for name in STAFF}
    pages |= {f"/me/memory/{kind}/{item['uid']}/": person for kind in KINDS
              for item in item_list(user_id=alice["subject"].user_id, kind=kind)["items"]}
    pages |= {f"/admin/review/traces/{bob['subject'].user_id}/{bob['trace']}/": reviewer,
              f"/admin/review/facts/?user={bob['subject'].user_id}": reviewer}
    answers = {url: client.get(url) for url, client in pages.items()}
    failed = [(url, r.status_code) for url, r in answers.items() if r.status_code >= 500]
    assert failed == [], failed
    assert b"look" in answers["/admin/review/traces/"].content  # the trace is listed, not left out
    assert b"Jonathon Smith" in answers["/admin/review/merges/"].content
