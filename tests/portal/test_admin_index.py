"""The admin index and sidebar list the Review pages with live counts, each row to whom its page opens;
sign-in lands a person on "My memory" and staff on the admin index."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db.models import Q
from django.test import Client
from django.urls import reverse
from neomodel import db

from review import cypher
from review.selectors import review_counts
from tests.support.stack import neo4j_unreachable
from tests.support.api import say
from wiring import admin_site

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-passphrase-7"
REVIEW_PAGES = admin.site.section_pages("review")
EVERY_PERMISSION = sorted({perm for page in REVIEW_PAGES for perm in page.perms})


def member(name, *perms, is_staff=True):
    """Return (user, signed-in Client) holding exactly these "app_label.codename" permissions."""
    user = get_user_model().objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD,
                                                is_staff=is_staff)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    wanted = Q(pk__in=[])
    for perm in perms:
        app_label, codename = perm.split(".")
        wanted |= Q(content_type__app_label=app_label, codename=codename)
    user.user_permissions.set(Permission.objects.filter(wanted))
    assert user.has_perms(perms)
    client = Client()
    client.force_login(user)
    return user, client


def review_rows(response) -> dict[str, str]:
    """Return the Review section of the page's app list and of its sidebar, as {row name: link}."""

    listed = [{row["name"]: row["admin_url"] for row in app["models"]}
              for apps in (response.context["app_list"], response.context["available_apps"])
              for app in apps if app["app_label"] == "review"]
    assert len(listed) in (0, 2) and (not listed or listed[0] == listed[1])
    return listed[0] if listed else {}


def test_the_index_shows_review_with_live_counts(granted):
    subject, _, api = granted
    user = subject.user_id
    say(api, user, "Met Jonathan Smith.", entities=[{"name": "Jonathan Smith", "type": "PERSON"}])
    say(api, user, "Jonathon Smith called.", entities=[{"name": "Jonathon Smith", "type": "PERSON"}])
    for text, priority in [("Ticket 7 is urgent.", "high"), ("Bumped it.", "critical")]:
        say(api, user, text, facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": priority}])
    for task in ("plan a trip", "book a hotel"):
        assert api.post("/api/v1/traces", {"user_id": user, "session_id": "s1", "task": task},
                        format="json").status_code == 201
    _, staff = member("reviewer", *EVERY_PERMISSION)

    index = staff.get("/admin/")
    rows = review_rows(index)
    assert rows == {
        "Audit log": reverse("admin:review_audit_list"),
        "Decided merges": reverse("admin:review_merge_decided"),
        "Superseded facts (1 to confirm)": reverse("admin:review_fact_timeline"),
        "Held memory (0 waiting)": reverse("admin:review_held_list"),
        "Merge proposals (1 pending)": reverse("admin:review_merge_list"),
        "Proposed corrections (0 waiting)": reverse("admin:review_correction_list"),
        "Erasure requests": reverse("admin:governance_erasure_request"),
        "Reasoning traces (2)": reverse("admin:review_trace_list"),
    }
    body = index.content.decode()
    assert f'<a href="{reverse("admin:review_index")}" class="section"' in body
    assert index.context["app_list"][0]["app_label"] == "review"  # the staff's work first, in its own order
    assert list(rows)[:2] == ["Merge proposals (1 pending)", "Superseded facts (1 to confirm)"]
    assert f'<a href="{reverse("admin:review_merge_list")}">Merge proposals (1 pending)</a>' in body
    # A review page's header menu names each page, with a pill only where work waits.
    menu = staff.get(reverse("admin:review_index")).content.decode()
    assert ('Merge proposals <span class="waiting">1<span class="visually-hidden"> pending</span></span>' in menu
            and "Superseded facts <span" in menu and "Held memory</a>" in menu and "Reasoning traces</a>" in menu)

    old = db.cypher_query("MATCH (f:Fact {user_id: $u, object: 'high'}) RETURN f.uid", {"u": user})[0][0][0]
    assert staff.post(reverse("admin:review_fact_confirm", args=[user, old])).status_code == 302
    api.post("/api/v1/traces", {"user_id": user, "session_id": "s1", "task": "pay the hotel"}, format="json")
    after = review_rows(staff.get("/admin/"))
    assert {"Merge proposals (1 pending)", "Superseded facts (0 to confirm)", "Reasoning traces (3)"} <= after.keys()


@pytest.mark.parametrize("page", REVIEW_PAGES, ids=lambda page: page.url_name)
def test_a_row_shows_exactly_when_its_page_opens(page):
    url = reverse(f"admin:{page.url_name}")
    _, allowed = member("allowed", *page.perms)
    assert allowed.get(url).status_code == 200
    assert url in review_rows(allowed.get("/admin/")).values()
    for missing in page.perms:
        _, refused = member(f"without-{missing.split('.')[1]}", *(p for p in page.perms if p != missing))
        assert refused.get(url).status_code == 403
        assert url not in review_rows(refused.get("/admin/")).values()


def test_counts_stop_past_the_cap_and_the_index_says_so(granted, monkeypatch):
    subject, _, api = granted
    for priority in ("high", "critical", "medium", "low"):
        say(api, subject.user_id, f"Ticket 7 is {priority} now.",
            facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": priority}])
    assert review_counts(cap=5)["facts_to_confirm"] == 3
    assert review_counts(cap=1)["facts_to_confirm"] == 2  # cap + 1: enough to know there are more
    monkeypatch.setattr(admin_site, "SECTION_COUNT_CAP", 1)
    _, staff = member("reviewer", *EVERY_PERMISSION)
    assert "Superseded facts (1+ to confirm)" in review_rows(staff.get("/admin/"))


def test_staff_without_review_permissions_see_no_review_section():
    _, client = member("plain-staff")
    index = client.get("/admin/")
    assert index.status_code == 200 and review_rows(index) == {}
    assert "Review" not in index.content.decode()
    _, person = member("person-with-permissions", *EVERY_PERMISSION, is_staff=False)
    assert person.get("/admin/", follow=True).redirect_chain[-1][0] == "/"


def test_the_index_still_opens_without_neo4j_and_lists_the_pages_without_counts():
    _, staff = member("reviewer", *EVERY_PERMISSION)
    with neo4j_unreachable():
        index = staff.get("/admin/")
    assert index.status_code == 200
    assert {"Merge proposals", "Superseded facts", "Reasoning traces", "Audit log"} <= review_rows(index).keys()


def test_the_counts_are_one_query_of_index_seeks_and_the_count_store():
    with db.driver.session() as session:
        plan = session.run("EXPLAIN " + cypher.REVIEW_COUNTS, {"cap": admin_site.SECTION_COUNT_CAP}).consume().plan
    operators, steps = set(), [plan]
    while steps:
        step = steps.pop()
        operators.add(step["operatorType"].split("@")[0])
        steps += step.get("children", [])
    assert not [op for op in operators if "Scan" in op and "Index" not in op], operators
    assert {"DirectedRelationshipIndexSeek", "NodeIndexSeek", "NodeCountFromCountStore"} <= operators, operators


@pytest.mark.parametrize(("is_staff", "landing"), [(False, "governance:overview"), (True, "admin:index")])
def test_sign_in_lands_a_person_on_my_memory_and_staff_on_the_admin_index(client, is_staff, landing):
    user, _ = member("someone", is_staff=is_staff)
    response = client.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
    assert response.status_code == 302 and response.url == reverse(landing)
    assert client.get(response.url).status_code == 200


@pytest.mark.parametrize(("next_url", "landing"), [("/me/consent/", "/me/consent/"),
                                                    ("https://elsewhere.example/", "/admin/")])
def test_sign_in_honours_a_safe_next_only(client, next_url, landing):
    user, _ = member("staffer")
    response = client.post(f"/accounts/login/?next={next_url}", {"login": user.email, "password": PASSWORD})
    assert response.status_code == 302 and response.url == landing
