"""Staff review pages on the admin site: merges, superseded facts, reasoning traces, audit.

Every page that shows a subject's memory needs `review.view_memory_content` and records who saw
whose memory. The site's `admin_view` (see urls.py) already requires an active staff member.
"""

import csv
from functools import wraps

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memory import selectors as memory_selectors
from memory import services as memory_services
from memory.forms import CorrectionForm
from memory.kinds import FACTS, TRACES
from memory.models import HeldStatus
from memory.selectors import subject_find, unowned_counts
from memory.views import correction_decide
from portal.exceptions import ApplicationError, NotFound, found
from review import selectors, services
from review.forms import AsOfForm, AuditFilterForm, MergeFilterForm, ReasonForm, TraceFilterForm

PER_PAGE = 50
CONTENT = "review.view_memory_content"


def requires(*perms):
    """Refuse (403) a staff member who lacks any of these permissions."""

    def decorate(view):
        @wraps(view)
        def check(request, *args, **kwargs):
            if not request.user.has_perms(perms):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return check

    return decorate


def on_site(view, site):
    """Serve a page on the admin site that mounts it, framed as that site's pages (its each_context)."""

    @wraps(view)
    def serve(request, *args, **kwargs):
        request.admin_site = site
        return view(request, *args, **kwargs)

    return serve


def _render(request, template: str, title: str, **context):
    return TemplateResponse(request, template, {**request.admin_site.each_context(request), "title": title,
                                                **context})


def _page_number(request) -> int:
    try:
        return max(int(request.GET.get("page", 1)), 1)
    except ValueError:
        return 1


def _with_emails(rows: list[dict]) -> list[dict]:
    emails = selectors.subject_labels(user_ids={row["user_id"] for row in rows})
    return [{**row, "email": emails.get(row["user_id"], "")} for row in rows]


def _filter_user_id(data: dict) -> str | None:
    """Return the public id of the person a filter's `user` names by id or email (what was typed if nobody)."""
    if not data.get("user"):
        return None
    subject = subject_find(text=data["user"])
    return subject.user_id if subject else data["user"].strip()


def _query_without_page(request) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


def _paging(request, *, page: int, count: int) -> dict:
    """Return what review/pagination.html shows: the count, the page, the pages and the query to keep."""
    return {"count": count, "page": page, "pages": max((count + PER_PAGE - 1) // PER_PAGE, 1),
            "query": _query_without_page(request)}


def _subject_or_404(text: str):
    subject = subject_find(text=text)
    if subject is None:
        raise Http404("No user with that id or email.")
    return subject


@require_GET
def index(request):
    return _render(request, "review/index.html", "Review", unowned=unowned_counts())


# --- merges -----------------------------------------------------------------------------------

def _merge_filters(request) -> tuple[MergeFilterForm, dict]:
    form = MergeFilterForm(request.GET)
    data = form.cleaned_data if form.is_valid() else {}
    return form, {"user_id": _filter_user_id(data), "type": data.get("type"), "band": data.get("band"),
                  "age": data.get("age")}


@requires("review.review_merges", CONTENT)
@require_GET
def merge_list(request):
    form, filters = _merge_filters(request)
    page = _page_number(request)
    result = selectors.merge_proposal_page(**filters, page=page, per_page=PER_PAGE)
    user_ids = {row["user_id"] for row in result["rows"]}
    services.memory_view_record(actor=request.user, user_ids=user_ids, page="merge_queue")
    return _render(request, "review/merge_list.html", "Merge proposals", form=form, rows=_with_emails(result["rows"]),
                   **_paging(request, page=page, count=result["count"]), filters=request.GET.urlencode())


def _merges_decide(request, decide, done: str):
    """Apply a decision to the pair of one row's button, or to every ticked pair, then go back to the queue."""
    keys = [request.POST["decide"]] if request.POST.get("decide") else request.POST.getlist("pair")
    decided = 0
    for key in keys:
        user_id, _, pair = key.partition("|")
        from_uid, _, into_uid = pair.partition(">")
        try:
            decide(user_id=user_id, from_uid=from_uid, into_uid=into_uid, actor=request.user)
            decided += 1
        except NotFound as exc:
            messages.warning(request, exc.message)
    messages.success(request, f"{done} {decided} merge{'s' if decided != 1 else ''}.")
    query = request.GET.urlencode()
    return redirect(reverse("admin:review_merge_list") + (f"?{query}" if query else ""))


@requires("review.review_merges", CONTENT)
@require_POST
def merge_approve(request):
    return _merges_decide(request, services.merge_approve, "Approved")


@requires("review.review_merges", CONTENT)
@require_POST
def merge_reject(request):
    return _merges_decide(request, services.merge_reject, "Rejected")


@requires("review.review_merges", CONTENT)
@require_GET
def merge_decided(request):
    form, filters = _merge_filters(request)
    page = _page_number(request)
    rows = selectors.merge_decided_page(**filters, page=page, per_page=PER_PAGE)
    user_ids = {row["user_id"] for row in rows}
    services.memory_view_record(actor=request.user, user_ids=user_ids, page="merge_decided")
    return _render(request, "review/merge_decided.html", "Decided merges", form=form, rows=_with_emails(rows),
                   page=page)


@requires("review.review_merges")
@require_http_methods(["GET", "POST"])
def merge_undo(request, user_id, from_uid, into_uid):
    if request.method == "POST":
        found(services.merge_undo, user_id=user_id, from_uid=from_uid, into_uid=into_uid, actor=request.user)
        messages.success(request, "Merge undone: both entities are as they were before it, and the pair will "
                                  "not be proposed again.")
        return redirect("admin:review_merge_decided")
    names = found(selectors.merge_names, user_id=user_id, from_uid=from_uid, into_uid=into_uid)
    if request.user.has_perm(CONTENT):
        services.memory_view_record(actor=request.user, user_ids={user_id}, page="merge_undo", target_id=from_uid)
    return _render(request, "review/merge_undo.html", "Undo this merge?", user_id=user_id, from_uid=from_uid,
                   into_uid=into_uid, names=names)


# --- facts ------------------------------------------------------------------------------------

@requires("review.review_facts", CONTENT)
@require_GET
def fact_timeline(request):
    """Show one person's fact timelines; before a person is chosen, the people whose facts wait to be confirmed."""

    user_text, subject_text = request.GET.get("user", ""), request.GET.get("subject", "")
    context = {"user_text": user_text, "subject_text": subject_text}
    if not user_text:
        context["waiting"] = selectors.facts_to_confirm_people()
        seen = {row["user_id"] for row in context["waiting"]}
    else:
        subject = _subject_or_404(user_text)
        context["person"] = subject
        context["fact_subjects"] = selectors.fact_subject_list(user_id=subject.user_id)
        if subject_text:
            context["timeline"] = selectors.fact_timeline(user_id=subject.user_id, subject=subject_text)
        seen = {subject.user_id}
    services.memory_view_record(actor=request.user, user_ids=seen, page="fact_timeline")
    return _render(request, "review/fact_timeline.html", "Superseded facts", **context)


@requires("review.review_facts")
@require_http_methods(["GET", "POST"])
def fact_revert(request, user_id, uid):
    found_fact = found(selectors.fact_get, user_id=user_id, uid=uid)
    subject = _subject_or_404(user_id)
    back = f"{reverse('admin:review_fact_timeline')}?user={user_id}&subject={found_fact['fact'].subject}"
    if request.method == "POST":
        found(services.fact_revert, user_id=user_id, fact_uid=uid, actor=request.user)
        messages.success(request, "Reverted: the older fact is current again; the newer one is kept, retracted.")
        return redirect(back)
    if request.user.has_perm(CONTENT):
        services.memory_view_record(actor=request.user, user_ids={user_id}, page="fact_revert", target_id=uid)
    return _render(request, "review/fact_revert.html", "Revert this supersession?", fact=found_fact["fact"],
                   person=subject, newer=found_fact["newer"], back=back)


@requires("review.review_facts")
@require_POST
def fact_confirm(request, user_id, uid):
    fact = found(selectors.fact_get, user_id=user_id, uid=uid)["fact"]
    found(services.fact_confirm, user_id=user_id, fact_uid=uid, actor=request.user)
    messages.success(request, "Supersession confirmed.")
    return redirect(f"{reverse('admin:review_fact_timeline')}?user={user_id}&subject={fact.subject}")


@requires("review.review_facts", CONTENT)
@require_GET
def fact_as_of(request):
    subject = _subject_or_404(request.GET.get("user", ""))
    form = AsOfForm(request.GET)
    facts = None
    if form.is_valid():
        facts = memory_selectors.facts_as_of(user_id=subject.user_id, as_of=form.cleaned_data["as_of"])
        services.memory_view_record(actor=request.user, user_ids={subject.user_id}, page="facts_as_of")
    return _render(request, "review/fact_as_of.html", "Facts as of a moment", form=form, facts=facts,
                   person=subject)


@requires("review.review_facts", CONTENT)
@require_http_methods(["GET", "POST"])
def fact_correct(request, user_id, uid):
    subject = _subject_or_404(user_id)
    fact = found(memory_selectors.item_get, user_id=subject.user_id, kind=FACTS.name, uid=uid)
    back = f"{reverse('admin:review_fact_timeline')}?user={user_id}&subject={fact['subject']}"
    form = CorrectionForm(request.POST or None, kind=FACTS.name, item=fact, person="the person")
    if request.method == "POST" and form.is_valid():
        try:
            memory_services.correction_create(subject=subject, kind=FACTS.name, uid=uid, value=form.changes(),
                                              reason=form.cleaned_data["reason"], actor=request.user)
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Corrected: the new version supersedes the old one, which is kept retracted.")
            return redirect(back)
    services.memory_view_record(actor=request.user, user_ids={user_id}, page="fact_correct", target_id=uid)
    return _render(request, "review/fact_correct.html", "Correct this fact", fact=fact, person=subject, form=form,
                   back=back)


# --- corrections an agent proposed ---------------------------------------------------------------

@requires("review.review_facts", CONTENT)
@require_GET
def correction_list(request):
    page = _page_number(request)
    result = selectors.correction_proposal_page(page=page, per_page=PER_PAGE)
    services.memory_view_record(actor=request.user, user_ids={c.subject.user_id for c, _ in result["rows"]},
                                page="correction_queue")
    return _render(request, "review/correction_list.html", "Proposed corrections", rows=result["rows"],
                   **_paging(request, page=page, count=result["count"]))


def _correction_decide(request, public_id, decide, done: str):
    correction = found(selectors.correction_proposal_get, public_id=public_id)
    correction_decide(request, correction=correction, decide=decide, done=done)
    return redirect("admin:review_correction_list")


@requires("review.review_facts", CONTENT)
@require_POST
def correction_accept(request, public_id):
    return _correction_decide(request, public_id, memory_services.correction_accept, "Correction accepted.")


@requires("review.review_facts", CONTENT)
@require_POST
def correction_reject(request, public_id):
    return _correction_decide(request, public_id, memory_services.correction_reject, "Correction rejected.")


# --- memory held for people ----------------------------------------------------------------------

@requires("review.review_facts", CONTENT)
@require_GET
def held_list(request):
    page = _page_number(request)
    waiting = memory_selectors.held_list(status=HeldStatus.HELD).order_by("created_at", "pk")
    found_rows = list(waiting[(page - 1) * PER_PAGE:page * PER_PAGE])
    services.memory_view_record(actor=request.user, user_ids={h.subject.user_id for h in found_rows},
                                page="held_queue")
    return _render(request, "review/held_list.html", "Held memory", rows=found_rows,
                   **_paging(request, page=page, count=waiting.count()))


@requires("review.review_facts", CONTENT)
@require_POST
def held_decide(request, public_id, decision):
    held = found(memory_selectors.held_get, public_id=public_id)
    try:
        memory_services.held_decide(held=held, decision=decision, actor=request.user)
    except ApplicationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Approved: the person's memory holds it now." if decision == "approve"
                         else "Rejected: nothing of it was added.")
    return redirect("admin:review_held_list")


# --- reasoning traces -------------------------------------------------------------------------

@requires("review.review_traces", CONTENT)
@require_GET
def trace_list(request):
    form = TraceFilterForm(request.GET)
    data = form.cleaned_data if form.is_valid() else {}
    page = _page_number(request)
    result = selectors.trace_page(user_id=_filter_user_id(data), agent_id=data.get("agent"),
                                  session_id=data.get("session"), outcome=data.get("outcome"), since=data.get("since"),
                                  until=data.get("until"), page=page, per_page=PER_PAGE)
    user_ids = {row["user_id"] for row in result["rows"]}
    services.memory_view_record(actor=request.user, user_ids=user_ids, page="trace_list")
    return _render(request, "review/trace_list.html", "Reasoning traces", form=form, rows=_with_emails(result["rows"]),
                   **_paging(request, page=page, count=result["count"]))


@requires("review.review_traces", CONTENT)
@require_GET
def trace_detail(request, user_id, uid):
    trace = found(selectors.trace_get, user_id=user_id, uid=uid)
    services.memory_view_record(actor=request.user, user_ids={user_id}, page="trace_detail", target_id=uid)
    return _render(request, "review/trace_detail.html", "Reasoning trace", trace=trace,
                   steps=memory_selectors.trace_steps(user_id=user_id, uid=uid),
                   similar=selectors.trace_similar(user_id=user_id, uid=uid),
                   email=selectors.subject_labels(user_ids={user_id}).get(user_id, ""))


@requires("review.review_traces")
@require_http_methods(["GET", "POST"])
def trace_delete(request, user_id, uid):
    found(selectors.trace_get, user_id=user_id, uid=uid)
    form = ReasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        deleted = found(memory_services.item_delete, user_id=user_id, kind=TRACES.name, uid=uid, actor=request.user,
                         reason=form.cleaned_data["reason"])
        messages.success(request, f"Trace deleted ({deleted} nodes with its steps and tool calls).")
        return redirect("admin:review_trace_list")
    return _render(request, "review/trace_delete.html", "Delete this trace?", form=form, user_id=user_id, uid=uid)


# --- audit ----------------------------------------------------------------------------------

def _audit_events(request):
    form = AuditFilterForm(request.GET)
    data = form.cleaned_data if form.is_valid() else {}
    return form, selectors.audit_event_list(**{k: v for k, v in data.items() if v})


@requires("review.view_auditevent")
@require_GET
def audit_list(request):
    form, events = _audit_events(request)
    page = Paginator(events, PER_PAGE).get_page(request.GET.get("page"))
    return _render(request, "review/audit_list.html", "Audit log", form=form, query=_query_without_page(request),
                   events=page, names=selectors.audit_names(events=page.object_list))


class _Echo:
    def write(self, value):
        return value


@requires("review.view_auditevent")
@require_GET
def audit_export(request):
    _, events = _audit_events(request)
    writer = csv.writer(_Echo())
    header = ["created_at", "actor", "action", "subject_digest", "target_type", "target_id", "before", "after",
              "reason"]
    rows = ([e.created_at.isoformat(), e.actor_label, e.action, e.subject_digest, e.target_type, e.target_id,
             e.before, e.after, e.reason] for e in events.iterator())
    response = StreamingHttpResponse((writer.writerow(r) for r in [header, *rows]), content_type="text/csv")
    response["Content-Disposition"] = 'attachment; filename="audit.csv"'
    return response
