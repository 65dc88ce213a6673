"""The demo, loaded by `load_demo` through the product's write path, and a browser walk over every page.

The walk enumerates the URL patterns of governance/urls.py and review/urls.py, so a new page
without a visit here fails the test. Pages that only accept POST are reached by submitting the
form that leads to them.

Before the walk changes anything, a survey reads every page a person, a reviewer, an admin and a
visitor can open (the same URL patterns, every model of the admin site, the sign-in pages, the API
docs and the 404 page) as a person would (tests/support/survey.py): at 390, 768 and 1,280 px nothing is
wider than the window, no text is drawn under 12 px, no two labels of a drawing overlap and no word is
broken mid-word; at 390 px every tap target is 44 px or more; axe-core (from npm, node_modules/) finds no
serious or critical violation in the light scheme nor a contrast one in the dark; no script or policy
error is logged; the text holds no predicate, internal key, ISO date or bare id outside code; and no
staff page speaks to its reader as the person whose memory it shows.
"""

import csv
import io
import json
import re
import time
import zipfile
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone
from neomodel import db

from governance import selectors as governance_selectors
from governance import urls as governance_urls
from governance.models import ErasureJob, ErasureScope, JobStatus
from knowledge.models import RetrievalProfile
from memory import selectors as memory_selectors
from memory.models import Agent, CorrectionStatus, Subject
from review.urls import review_urls
from tests.support.stack import ROOT, SCREENSHOTS
from tests.support.survey import (BROKEN_WORDS, PERSON_VOICE, RAW, SMALL_OR_OVERLAPPING, SMALL_TAP_TARGETS,
                                  VISIBLE_TEXT)

pytestmark = pytest.mark.django_db(transaction=True)

WALK_SCREENSHOTS = SCREENSHOTS / "walk"
PERSON, STAFF = ("demo@example.com", "demo-password"), ("admin@example.com", "admin-password")
REVIEWER = ("reviewer@example.com", "reviewer-password")
SAME_AS = "MATCH (a:Entity {user_id: $u})-[s:SAME_AS]->(b:Entity) RETURN a.name, b.name, s.status, a.uid, b.uid"
WIDTHS = (1280, 768, 390)
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# Every rule axe-core runs by default (WCAG 2 A and AA and its best practices), or only those named.
AXE_RUN = """async (rules) => {
  const result = await axe.run(document, rules ? {runOnly: rules} : {resultTypes: ['violations']});
  return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`);
}"""
# A colour scheme switched after the page loaded reaches the links after their 0.15 s transition.
TRANSITIONS_END = "document.getAnimations().forEach(a => { if (a.effect.getComputedTiming().endTime !== Infinity) a.finish(); })"


def _load() -> str:
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def _token(output: str) -> str:
    return output.split("token (shown once, revoked at the next load): ")[1].split()[0]


def _counts(user_id: str) -> dict:
    rows, _ = db.cypher_query("MATCH (n {user_id: $u}) RETURN labels(n)[0], count(*)", {"u": user_id})
    return dict(rows)


@pytest.fixture
def demo(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return _load()


def test_demo_fills_every_kind_of_memory_once(demo, client):
    subject = Subject.objects.get(account__email=PERSON[0])
    user = subject.user_id
    counts = _counts(user)
    assert counts["Conversation"] >= 6 and counts["Message"] >= 25 and counts["ReasoningTrace"] == 2
    facts = {(f["object"], f["status"]) for f in memory_selectors.item_list(user_id=user, kind="facts")["items"]}
    assert {("Acme Corp", "superseded"), ("Globex", "current"), ("Lisbon", "superseded"), ("Porto", "current")} <= facts
    preferences = {(p["preference"], p["status"])
                   for p in memory_selectors.item_list(user_id=user, kind="preferences")["items"]}
    assert ("likes window seats", "superseded") in preferences and ("likes aisle seats", "current") in preferences
    assert [p.preference for p in memory_selectors.standing_instructions(user_id=user)] == [
        "From now on, please remind me the evening before every meeting."]
    same_as = {(a, b): status for a, b, status, *_ in db.cypher_query(SAME_AS, {"u": user})[0]}
    assert same_as[("Jonathon Smith", "Jonathan Smith")] == "pending"
    assert same_as[("Marta", "Marta Ribeiro")] == "auto"
    erasure = ErasureJob.objects.get(subject=subject)
    assert (erasure.scope, erasure.category, erasure.status) == (ErasureScope.CATEGORY, "reasoning", JobStatus.DONE)
    assert erasure.tombstone.residue_total == 0 and erasure.nodes_deleted == 3
    account = ErasureJob.objects.get(scope=ErasureScope.ACCOUNT)
    assert account.subject is None and account.tombstone.residue_total == 0
    assert [job.is_downloadable for job in governance_selectors.export_list(subject=subject)] == [True]
    calendar = Agent.objects.get(agent_id="demo-calendar")
    assert "traces:write" not in calendar.scopes
    assert memory_selectors.consented_categories(subject=subject, agent=calendar) == {"history", "long_term"}

    again = _load()
    assert _counts(user) == counts
    assert ErasureJob.objects.count() == 2 and len(governance_selectors.export_list(subject=subject)) == 1
    assert Agent.objects.get(agent_id="demo-assistant").tokens.filter(revoked_at__isnull=True).count() == 1
    body = {"user_id": user, "query": "Which seat do I like on flights?"}
    answer = client.post("/api/v1/context", body, content_type="application/json",
                         HTTP_AUTHORIZATION=f"Bearer {_token(again)}")
    assert answer.status_code == 200 and "aisle" in answer.json()["context"]
    refused = client.post("/api/v1/context", body, content_type="application/json",
                          HTTP_AUTHORIZATION=f"Bearer {_token(demo)}")
    assert refused.status_code == 401


class Walk:
    """A browser page, signed in unless no login is given, that visits URLs, checks them and keeps a
    screenshot of each, and surveys pages at every width.

    Besides the page itself, every script error, every error the console logs (a refused script or style
    included) and every same-origin request that fails (a style sheet, a script, a graph fetched by the
    page) fails the visit.
    """

    def __init__(self, browser, base_url: str, login: tuple[str, str] | None):
        self.page = browser.new_page(viewport={"width": WIDTHS[0], "height": 900})
        self.page.set_default_timeout(15_000)
        self.page.add_init_script(path=AXE)  # in every page the survey reads; CDP's scripts pass the policy
        self.base_url = base_url
        self.problems: list[str] = []
        self.page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        # A failed load is logged twice, by the console and as its response: the response names the URL.
        self.page.on("console", lambda message: self.problems.append(f"console: {message.text}") if (
            message.type == "error" and not message.text.startswith("Failed to load resource")) else None)
        self.page.on("response", lambda response: self.problems.append(f"{response.status} {response.url}") if (
            response.status >= 400 and response.url.startswith(base_url)) else None)
        self.visited: set[str] = set()
        self.surveyed: dict[str, int] = {}
        if login is None:
            return
        self.page.goto(f"{base_url}/accounts/login/")
        self.page.fill("input[name=login]", login[0])
        self.page.fill("input[name=password]", login[1])
        self.page.click("button[type=submit]")
        self.page.wait_for_load_state()
        assert "/accounts/login/" not in self.page.url, f"{login[0]} could not sign in"

    def survey(self, name: str, url: str, *, status: int = 200, ready: str = "", shot: str = "",
               for_developers: bool = False) -> None:
        """Read one page as a person would, at every width and in both colour schemes (see the module's docstring);
        a page for developers (the API's docs, Swagger UI's, read at a desk) names the API's fields and is held
        neither to plain words nor to a phone's tap targets."""
        page = self.page
        page.set_viewport_size({"width": WIDTHS[0], "height": 900})
        page.emulate_media(color_scheme="light")
        response = page.goto(f"{self.base_url}{url}")
        assert response.status == status, f"{name}: {url} answered {response.status}"
        if ready:
            page.wait_for_selector(ready)
        if status >= 400:
            self.problems.remove(f"{status} {self.base_url}{url}")
        text = page.evaluate(VISIBLE_TEXT)
        raw = [] if for_developers else sorted(set(RAW.findall(text)))
        assert not raw, f"{name}: {url} shows {raw}"
        if url.startswith("/admin/"):
            voice = sorted(set(PERSON_VOICE.findall(text)))
            assert not voice, f"{name}: {url} speaks to staff as the person: {voice}"
        # The admin's change lists scroll sideways inside their box; at the widest, none needs to.
        cut = page.evaluate("[...document.querySelectorAll('.results, .table-wrap')].filter(e => "
                            "e.scrollWidth > e.clientWidth).length")
        assert not cut, f"{name}: {url} cuts a table at {WIDTHS[0]} px"
        assert not self.problems, f"{name}: {url}: {self.problems}"
        violations = page.evaluate(AXE_RUN, None)
        assert not violations, f"{name}: {url} in the light scheme: {violations}"
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            wider = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert wider <= 0, f"{name}: {url} is {wider} px wider than a {width} px window"
            small = page.evaluate(SMALL_OR_OVERLAPPING)
            assert not small, f"{name}: {url} at {width} px: {small[:5]}"
            broken = page.evaluate(BROKEN_WORDS)
            assert not broken, f"{name}: {url} at {width} px breaks {broken[:5]} mid-word"
        taps = [] if for_developers else page.evaluate(SMALL_TAP_TARGETS)  # at the last width, a phone's
        assert not taps, f"{name}: {url} at {WIDTHS[-1]} px has tap targets under 44 px: {taps[:5]}"
        page.emulate_media(color_scheme="dark")
        page.evaluate(TRANSITIONS_END)
        violations = page.evaluate(AXE_RUN, ["color-contrast"])
        assert not violations, f"{name}: {url} in the dark scheme: {violations}"
        if shot:
            page.screenshot(path=str(WALK_SCREENSHOTS / f"{shot}-{WIDTHS[-1]}.png"), full_page=True)
        # What the page logged was checked before axe ran; axe-core measures some fields (a password's) with
        # inline styles of its own, which the page's policy refuses and the console reports.
        self.problems.clear()
        self.surveyed[name] = self.surveyed.get(name, 0) + 1
        page.set_viewport_size({"width": WIDTHS[0], "height": 900})
        page.emulate_media(color_scheme="light")

    def visit(self, name: str, url: str, *expected: str, shot: str = "") -> None:
        response = self.page.goto(f"{self.base_url}{url}")
        self.check(name, response.status, *expected, shot=shot)

    def check(self, name: str, status: int, *expected: str, shot: str = "") -> None:
        url = self.page.url
        assert status < 400, f"{name}: {url} answered {status}"
        assert "/accounts/login/" not in url, f"{name}: {url} asked to sign in"
        self.page.wait_for_load_state("networkidle")
        assert not self.problems, f"{name}: {url}: {self.problems}"
        text = self.page.locator("body").inner_text().lower()
        for value in expected:
            assert value.lower() in text, f"{name}: {value!r} not on {url}"
        self.page.screenshot(path=str(WALK_SCREENSHOTS / f"{shot or name.replace(':', '-')}.png"), full_page=True)
        self.visited.add(name)

    def submit(self, name: str, selector: str, *expected: str, shot: str = "") -> None:
        """Submit the form of a POST-only page from the page that holds it, and check where it leads."""
        with self.page.expect_navigation() as navigation:
            self.page.click(selector)
        self.check(name, navigation.value.status, *expected, shot=shot)

    def refuse(self, url: str) -> None:
        """Check that this account is refused the page."""
        assert self.page.goto(f"{self.base_url}{url}").status == 403, f"{url} was not refused"
        self.problems.remove(f"403 {self.base_url}{url}")

    def download(self, name: str, url: str) -> bytes:
        response = self.page.context.request.get(f"{self.base_url}{url}")
        assert response.status == 200, f"{name}: {url} answered {response.status}"
        self.visited.add(name)
        return response.body()


def _pattern_names() -> set[str]:
    """Return every page of the person's portal, of the review app and of the admin index's Review section."""
    return ({f"governance:{p.name}" for p in governance_urls.urlpatterns}
            | {f"admin:{p.name}" for p in review_urls(admin.site)}
            | {f"admin:{page.url_name}" for page in admin.site.section_pages("review")})


# Operations, not pages: the walk reaches each by submitting the form that leads to it.
NOT_PAGES = {"governance:agent_pause", "governance:agent_correct", "governance:correction_accept",
             "governance:correction_reject", "governance:correction_undo", "governance:export_download",
             "admin:review_merge_approve", "admin:review_merge_reject", "admin:review_fact_confirm",
             "admin:review_correction_accept", "admin:review_correction_reject", "admin:review_audit_export",
             "governance:agent_untrusted_writes", "governance:held_decide", "admin:review_held_decide",
             "governance:erasure_receipt", "governance:account_deleted_receipt"}


def _survey(*, visitor: Walk, me: Walk, reviewer: Walk, superuser: Walk, staff, user: str, ids: dict) -> None:
    """Survey every page of the demo before the walk changes anything: the person's, the reviewer's, the
    admin site's (every registered model) and a visitor's; fail on a page of governance or review left out."""
    started = time.monotonic()
    g = lambda name, *args: reverse(f"governance:{name}", args=args)  # noqa: E731
    r = lambda name, *args: reverse(f"admin:{name}", args=args)  # noqa: E731
    for name, url in [("home", "/"), ("account_login", "/accounts/login/"), ("account_signup", "/accounts/signup/"),
                      ("account_reset_password", "/accounts/password/reset/"),
                      ("governance:account_deleted", g("account_deleted", ids["account"])),
                      ("governance:receipt_verify", g("receipt_verify"))]:
        visitor.survey(name, url)
    visitor.survey("api-docs", "/api/docs/", ready=".swagger-ui .opblock", for_developers=True)
    visitor.survey("not found", "/no-such-page/", status=404)

    for name, url, shot in [
        ("overview", g("overview"), "01-overview"), ("consent", g("consent"), ""),
        ("consent_erase", g("consent_erase", "reasoning"), ""), ("retention", g("retention"), ""),
        ("agent_list", g("agent_list"), ""), ("agent_revoke", g("agent_revoke", "demo-calendar"), ""),
        ("conversation_list", g("conversation_list"), ""),
        ("conversation_detail", g("conversation_detail", ids["conversation"]), "14-conversation"),
        ("correction_list", g("correction_list"), ""), ("held_list", g("held_list"), ""),
        ("access_list", g("access_list"), "08-access-log"),
        ("export_list", g("export_list"), ""), ("export_detail", g("export_detail", ids["export"]), ""),
        ("erase", g("erase"), ""), ("erasure_detail", g("erasure_detail", ids["erasure"]), ""),
        ("account_delete", g("account_delete"), ""),
    ]:
        me.survey(f"governance:{name}", url, shot=shot)
    for kind, uid in ids["items"].items():
        me.survey("governance:item_list", g("item_list", kind))
        me.survey("governance:item_detail", g("item_detail", kind, uid))
        me.survey("governance:item_forget", g("item_forget", kind, uid))
        if kind in ("facts", "preferences", "entities"):
            me.survey("governance:item_correct", g("item_correct", kind, uid))
    for name, url in [("account_email", "/accounts/email/"), ("account_change_password", "/accounts/password/change/"),
                      ("account_logout", "/accounts/logout/"), ("mfa_index", "/accounts/2fa/"),
                      ("mfa_activate_totp", "/accounts/2fa/totp/activate/")]:
        me.survey(name, url)

    person = "?user=demo@example.com"
    for name, url, shot in [
        ("index", r("index"), ""), ("review_index", r("review_index"), ""),
        ("review_merge_list", r("review_merge_list"), "11-merge-queue"),
        ("review_merge_decided", r("review_merge_decided"), ""),
        ("review_merge_undo", r("review_merge_undo", user, *ids["merge"]), ""),
        ("review_fact_timeline", r("review_fact_timeline"), ""),
        ("review_fact_timeline", f"{r('review_fact_timeline')}{person}&subject=user", ""),
        ("review_fact_as_of", f"{r('review_fact_as_of')}{person}&as_of={ids['moment']}", ""),
        ("review_fact_revert", r("review_fact_revert", user, ids["superseded"]), ""),
        ("review_fact_correct", r("review_fact_correct", user, ids["items"]["facts"]), ""),
        ("review_correction_list", r("review_correction_list"), ""), ("review_held_list", r("review_held_list"), ""),
        ("review_trace_list", r("review_trace_list"), ""),
        ("review_trace_detail", r("review_trace_detail", user, ids["items"]["traces"]), ""),
        ("review_trace_delete", r("review_trace_delete", user, ids["items"]["traces"]), ""),
        ("review_audit_list", r("review_audit_list"), ""),
    ]:
        reviewer.survey(f"admin:{name}", url, shot=shot)

    request = RequestFactory().get("/")
    request.user = staff
    superuser.survey("admin:governance_erasure_request", f"{r('governance_erasure_request')}{person}&reason=Asked")
    for name, url in [("memory_agent_token_issue", r("memory_agent_token_issue", ids["agent"])),
                      ("memory_agent_token_revoke", r("memory_agent_token_revoke", ids["agent"], ids["token"])),
                      ("auth_user_password_change", r("auth_user_password_change", staff.pk)),
                      ("password_change", r("password_change"))]:
        superuser.survey(f"admin:{name}", url)
    if ids["profile"]:  # the demo's knowledge (load_demo_knowledge) is loaded by make run, not here
        superuser.survey("admin:knowledge_retrievalprofile_try", r("knowledge_retrievalprofile_try", ids["profile"].pk))
    for app_label in {model._meta.app_label for model in admin.site._registry}:
        superuser.survey("admin:app_list", r("app_list", app_label))
    for model, model_admin in admin.site._registry.items():
        name, first = f"{model._meta.app_label}_{model._meta.model_name}", model._default_manager.order_by("pk").first()
        superuser.survey(f"admin:{name}_changelist", r(f"{name}_changelist"))
        if model_admin.has_add_permission(request):
            superuser.survey(f"admin:{name}_add", r(f"{name}_add"))
        if first is not None:
            superuser.survey(f"admin:{name}_change", r(f"{name}_change", first.pk))
    surveyed = me.surveyed.keys() | reviewer.surveyed.keys() | superuser.surveyed.keys() | visitor.surveyed.keys()
    assert _pattern_names() - NOT_PAGES - surveyed == set()
    views = sum(sum(walk.surveyed.values()) for walk in (me, reviewer, superuser, visitor))
    print(f"\nsurveyed {views} pages at {', '.join(map(str, WIDTHS))} px in {time.monotonic() - started:.0f} s: 0 overflowing, 0 serious or critical axe "
          "violations, 0 raw keys, ids or ISO times, 0 labels under 12 px or overlapping, 0 words broken, 0 tap "
          "targets under 44 px on a phone, 0 staff pages in the person's voice")


def _item(user_id: str, kind: str, **fields) -> dict:
    return next(i for i in memory_selectors.item_list(user_id=user_id, kind=kind)["items"]
                if all(i.get(name) == value for name, value in fields.items()))


def _propose(client, token: str, user_id: str, kind: str, uid: str, value: dict) -> str:
    """Propose a correction as the demo assistant does, through the API; return its id."""

    response = client.post(f"/api/v1/users/{user_id}/{kind}/{uid}/corrections", value,
                           content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 202, response.content
    return response.json()["correction"]


def test_walk_every_page_of_the_demo(demo, chromium, live_server, client):
    _, browser = chromium
    WALK_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    subject = Subject.objects.get(account__email=PERSON[0])
    user = subject.user_id
    erasure = ErasureJob.objects.get(subject=subject)
    account = ErasureJob.objects.get(scope=ErasureScope.ACCOUNT)
    export = governance_selectors.export_list(subject=subject).first()
    conversation = next(c for c in memory_selectors.conversation_list(user_id=user)
                        if c["session_id"] == "week-6-new-job")
    items = {
        "messages": (_item(user, "messages", content="Big news: I work at Globex now."), "Big news"),
        "facts": (_item(user, "facts", subject="user", object="Globex"), "Globex"),
        "preferences": (_item(user, "preferences", preference="likes aisle seats"), "aisle seats"),
        "entities": (_item(user, "entities", name="Jonathan Smith"), "Jonathan Smith"),
        "traces": (_item(user, "traces", task="Book a train from Porto to Lisbon on Monday"), "Book a train"),
    }

    me, reviewer = Walk(browser, live_server.url, PERSON), Walk(browser, live_server.url, REVIEWER)
    superuser, visitor = Walk(browser, live_server.url, STAFF), Walk(browser, live_server.url, None)
    pairs = {a: (a_uid, b_uid) for a, _, _, a_uid, b_uid in db.cypher_query(SAME_AS, {"u": user})[0]}
    acme = _item(user, "facts", subject="user", object="Acme Corp")
    calendar = Agent.objects.get(agent_id="demo-calendar")
    _survey(visitor=visitor, me=me, reviewer=reviewer, superuser=superuser,
            staff=get_user_model().objects.get(email=STAFF[0]), user=user, ids={
                "account": account.public_id, "conversation": conversation["uid"], "export": export.public_id,
                "erasure": erasure.public_id, "items": {kind: item["uid"] for kind, (item, _) in items.items()},
                "merge": pairs["Marta"], "superseded": acme["uid"], "agent": calendar.pk,
                "token": calendar.tokens.first().pk, "profile": RetrievalProfile.objects.first(),
                "moment": (timezone.now() + timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M")})

    g = lambda name, *args, **kwargs: reverse(f"governance:{name}", args=args, kwargs=kwargs)  # noqa: E731
    me.visit("governance:overview", g("overview"), "Demo assistant", "Calendar helper", "Agents proposed 2 corrections",
             "Your standing instructions", "remind me the evening before every meeting", shot="01-overview")
    me.visit("governance:consent", g("consent"), "Calendar helper", "Reasoning traces",
             "withdrawn", shot="03-consent-ledger")
    me.visit("governance:consent_erase", g("consent_erase", "reasoning"), "Reasoning traces",
             shot="02-consent-withdrawn-offer-erase")
    me.visit("governance:agent_list", g("agent_list"), "Demo assistant", "Calendar helper")
    me.submit("governance:agent_pause", "[data-testid=pause-demo-calendar]", "Calendar helper is paused",
              shot="04-agent-paused")
    me.page.click("[data-testid=resume-demo-calendar]")
    me.submit("governance:agent_correct", "[data-testid=correct-directly-demo-calendar]",
              "Calendar helper may now correct your memory without asking you first", "corrects directly")
    me.submit("governance:agent_correct", "[data-testid=propose-only-demo-calendar]",
              "Calendar helper can only propose corrections", shot="agent-proposes-corrections")
    me.page.select_option("[data-testid=untrusted-writes-demo-calendar]", "hold")
    me.submit("governance:agent_untrusted_writes", "[data-testid=untrusted-writes-demo-calendar] ~ input[type=submit]",
              "What Calendar helper and its tools say about you waits for you", shot="agent-untrusted-writes")
    me.visit("governance:agent_revoke", g("agent_revoke", "demo-calendar"), "Calendar helper")
    held = {h.tool_name or "phone": h for h in memory_selectors.held_list(subject=subject, status="held")
            if h.session_id == "week-8-deals"}
    me.visit("governance:held_list", g("held_list"), "+44 20 7946 0321", "the agent’s own note",
             "a web page (rail-deals.example), read with its web search tool", "standing instruction",
             "Added by you", "Not added by a reviewer (reviewer@example.com)", shot="held-list")
    me.submit("governance:held_decide", f"[data-held='{held['phone'].public_id}'] ~ .actions-row input.accept",
              "Added to your memory", shot="held-approved")
    me.submit("governance:held_decide",
              f"#held-decided [data-held='{held['phone'].public_id}'] ~ .actions-row input[type=submit]",
              "Undone: it waits for you again")
    me.visit("governance:conversation_list", g("conversation_list"), "week-8-train", "week-1-moving-in")
    me.visit("governance:conversation_detail", g("conversation_detail", conversation["uid"]),
             "Big news: I work at Globex now.", "Jonathon Smith sent me a farewell card",
             "Demo assistant was given", shot="14-conversation")
    for kind, (item, value) in items.items():
        me.visit("governance:item_list", g("item_list", kind), value, shot=f"item-list-{kind}")
        me.visit("governance:item_detail", g("item_detail", kind, item["uid"]), value,
                 shot="06-entity-neighbourhood" if kind == "entities" else f"item-detail-{kind}")
        me.visit("governance:item_forget", g("item_forget", kind, item["uid"]), value, shot=f"item-forget-{kind}")
    me.visit("governance:access_list", g("access_list"), "Demo assistant", "Calendar helper", shot="08-access-log")
    # The demo's agents were handed this turn (what it states, once it is in a context, costs nothing more).
    me.visit("governance:item_detail", g("item_detail", "messages", items["messages"][0]["uid"]),
             "Agents that received it in a context", shot="item-uses")
    assert "Demo assistant" in me.page.inner_text("#uses") and "(retention)" in me.page.inner_text("#kept-until")
    me.visit("governance:retention", g("retention"), "365 days", shot="retention")
    assert me.page.input_value("[data-testid=days-history]") == "365"

    proposals = {c.kind: c for c in memory_selectors.correction_list(subject=subject, status=CorrectionStatus.PROPOSED)}
    northwind = memory_selectors.correction_list(subject=subject, status=CorrectionStatus.APPLIED).get()
    me.visit("governance:correction_list", g("correction_list"), "Your first day at Globex was on your calendar",
             "loves live jazz", "Demo assistant", "applied", "Northwind Logistics", shot="correction-proposals")
    me.submit("governance:correction_accept", f"#proposals tr[data-correction='{proposals['facts'].public_id}'] "
              "input.accept", "Correction accepted", "Globex", "Demo assistant, accepted by you",
              shot="correction-accepted")
    me.page.goto(f"{live_server.url}{g('correction_list')}")
    me.submit("governance:correction_reject", f"#proposals tr[data-correction='{proposals['preferences'].public_id}'] "
              "input.reject", "Correction rejected", "No proposals are waiting", "rejected")
    me.visit("governance:item_detail", g("item_detail", "entities", northwind.target_uid), "Northwind",
             "Everyone calls it Northwind.", shot="item-corrections-history")
    me.visit("governance:item_correct", g("item_correct", "entities", northwind.target_uid), "Why (optional)",
             shot="item-correct")
    assert me.page.input_value("#correct-form input[name=name]") == "Northwind Logistics"
    me.page.goto(f"{live_server.url}{g('item_detail', 'entities', northwind.target_uid)}")
    me.submit("governance:correction_undo", f"#corrections tr[data-correction='{northwind.public_id}'] input.undo",
              "Correction undone", "undone")
    decided = {c.kind: c.status for c in memory_selectors.correction_list(subject=subject)}
    assert decided == {"facts": "applied", "preferences": "rejected", "entities": "undone"}

    me.visit("governance:export_list", g("export_list"), "Done")
    me.visit("governance:export_detail", g("export_detail", export.public_id), "Download", shot="05-export-ready")
    archive = zipfile.ZipFile(io.BytesIO(me.download("governance:export_download", g("export_download",
                                                                                      export.public_id))))
    assert json.loads(archive.read("manifest.json"))["user_id"] == user
    assert "I work at Globex now." in archive.read("nodes/Message.json").decode()
    counts = governance_selectors.node_counts(user_id=user)
    me.visit("governance:erase", g("erase"), f"{counts['messages']} messages", f"{counts['facts']} facts",
             "3 agents", shot="09-erase-confirmation")
    me.visit("governance:erasure_detail", g("erasure_detail", erasure.public_id), "reasoning", "nothing left",
             shot="10-erasure-tombstone")
    receipt = json.loads(me.download("governance:erasure_receipt", g("erasure_receipt", erasure.public_id)))
    assert receipt["receipt"]["erasure"] == str(erasure.public_id)
    me.visit("governance:receipt_verify", g("receipt_verify"), "public key")
    me.visit("governance:account_delete", g("account_delete"), "account")
    me.visit("governance:account_deleted", g("account_deleted", account.public_id), "deleted")
    me.download("governance:account_deleted_receipt", g("account_deleted_receipt", account.public_id))

    r = lambda name, *args: reverse(f"admin:{name}", args=args)  # noqa: E731
    person = f"?user={PERSON[0]}"
    superuser.visit("admin:index", r("index"), "Review", "Merge proposals (2 pending)", "Superseded facts (2 to confirm)",
                    "Proposed corrections (0 waiting)", "Held memory (2 waiting)", "Erasure requests",
                    shot="19-admin-index")
    superuser.visit("admin:governance_erasure_request",
                    f"{r('governance_erasure_request')}{person}&reason=Asked+by+phone",
                    f"Erase all memory of {PERSON[0]}", f"{counts['messages']} messages")

    reviewer.refuse(r("governance_erasure_request"))
    train = items["traces"][0]["uid"]
    flight = _item(user, "traces", task="Book a flight from Lisbon to Porto on Friday")
    reviewer.visit("admin:review_index", r("review_index"), "Merge proposals")
    # Each name of a pair with the sentences that mention it: the proposal's and the other name's own.
    reviewer.visit("admin:review_merge_list", r("review_merge_list"), "Jonathon Smith sent me a farewell card",
                   "My colleague Jonathan Smith will join me in Porto", "Sophia Martins", "2 in all",
                   shot="11-merge-queue")
    reviewer.submit("admin:review_merge_approve", "tr[data-pair='Jonathon Smith'] button.approve", "Approved 1 merge",
                    "Sophia Martins")
    reviewer.submit("admin:review_merge_reject", "tr[data-pair='Sophia Martins'] button.reject", "Rejected 1 merge",
                    "No pending proposals")
    reviewer.visit("admin:review_merge_decided", r("review_merge_decided"), "Marta Ribeiro", "Jonathan Smith",
                   "Sofia Martins", shot="15-merges-decided")
    reviewer.visit("admin:review_merge_undo", r("review_merge_undo", user, *pairs["Marta"]), "Undo")
    reviewer.visit("admin:review_fact_timeline", r("review_fact_timeline"), "demo@example.com", "the person")
    assert reviewer.page.inner_text("#facts-to-confirm td[data-label='Facts to confirm']") == "2"
    reviewer.visit("admin:review_fact_timeline", f"{r('review_fact_timeline')}{person}&subject=user", "Acme Corp",
                   "Globex", "Lisbon", "Porto", shot="12-fact-timeline")
    assert reviewer.page.locator(".timeline rect.bar").count() >= 4
    soon = (timezone.now() + timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M")
    reviewer.visit("admin:review_fact_as_of", f"{r('review_fact_as_of')}{person}&as_of={soon}", "Globex", "Porto",
                   shot="16-facts-as-of")
    reviewer.visit("admin:review_fact_revert", r("review_fact_revert", user, acme["uid"]), "Acme Corp")
    reviewer.page.goto(f"{live_server.url}{r('review_fact_timeline')}{person}&subject=user")
    reviewer.submit("admin:review_fact_confirm", f"form[action='{r('review_fact_confirm', user, acme['uid'])}'] "
                    "input[type=submit]", "Supersession confirmed")
    porto = _item(user, "facts", subject="user", object="Porto", status="current")
    reviewer.visit("admin:review_fact_correct", r("review_fact_correct", user, porto["uid"]), "Porto",
                   f"Correct this fact for {PERSON[0]}")
    token = _token(demo)
    aisle = _propose(client, token, user, "preferences", items["preferences"][0]["uid"],
                     {"preference": "likes aisle seats on trains", "reason": "You booked aisle seats on trains."})
    jazz = _propose(client, token, user, "preferences", proposals["preferences"].target_uid,
                    {"preference": "loves jazz quartets"})
    reviewer.visit("admin:review_correction_list", r("review_correction_list"), PERSON[0], "(2)",
                   "likes aisle seats on trains", "loves jazz quartets", shot="review-correction-proposals")
    reviewer.submit("admin:review_correction_accept", f"tr[data-correction='{aisle}'] input.accept",
                    "Correction accepted.", "loves jazz quartets")
    reviewer.submit("admin:review_correction_reject", f"tr[data-correction='{jazz}'] input.reject",
                    "Correction rejected.", "No proposals are waiting.")
    assert _item(user, "preferences", preference="likes aisle seats on trains")["status"] == "current"
    reviewer.visit("admin:review_held_list", r("review_held_list"), PERSON[0], "billing@rail-deals.example",
                   shot="review-held")
    reviewer.submit("admin:review_held_decide", f"[data-held='{held['web_search'].public_id}'] ~ .actions-row input.reject",
                    "Rejected: nothing of it was added")
    reviewer.visit("admin:review_trace_list", f"{r('review_trace_list')}{person}", "Book a train", "Book a flight",
                   shot="17-trace-list")
    reviewer.visit("admin:review_trace_detail", r("review_trace_detail", user, train), "search_trains",
                   "Book a flight from Lisbon to Porto on Friday", shot="13-trace-tree")
    reviewer.visit("admin:review_trace_delete", r("review_trace_delete", user, flight["uid"]), "Delete")
    reviewer.visit("admin:review_audit_list", r("review_audit_list"), "approved a merge", "paused: no → yes",
                   shot="18-audit-log")
    # The survey's page views pushed the load's own events to a later page: filtered, they are first again.
    for action, *done in (("consent.withdraw", "withdrew consent"), ("erasure.done", "finished an erasure"),
                          ("client.", "connected an app", "Notes app", "it may: read memory"),
                          ("held.", "added held memory", "did not add held memory", "reviewer@example.com")):
        reviewer.visit("admin:review_audit_list", f"{r('review_audit_list')}?action={action}", *done,
                       shot=f"18-audit-log-{action}")
    audit_csv = reviewer.download("admin:review_audit_export", r("review_audit_export")).decode()
    rows = list(csv.reader(io.StringIO(audit_csv)))
    assert rows[0][:3] == ["created_at", "actor", "action"]
    assert {"grant.create", "consent.withdraw", "erasure.request", "erasure.done", "merge.approve", "merge.reject",
            "fact.confirm"} <= {row[2] for row in rows}

    assert _pattern_names() - me.visited - superuser.visited - reviewer.visited == set()
