"""The "My memory" pages: every signed-in user governs their own memory here, and only their own."""

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from governance import receipts, selectors, services
from governance.forms import ReceiptVerifyForm
from governance.models import ErasureScope, JobStatus
from memory import selectors as memory_selectors
from memory import services as memory_services
from memory.forms import CorrectionForm
from memory.kinds import ENTITIES, KINDS, TRACES, kind_get
from memory.models import CATEGORIES, UNTRUSTED_WRITES, HeldStatus
from memory.views import correction_decide
from memory.wording import (CATEGORY_HELP, CATEGORY_LABELS, HELD_DECIDED, UNTRUSTED_WRITES_SAID, category_label,
                            provenance)
from portal.exceptions import ApplicationError, found

KIND_TITLES = {kind.name: kind.title for kind in KINDS}
# A search of one's memory reads this much of what was typed, as the search box allows.
SEARCH_MAX_CHARS = 200
ACCESSES_PER_PAGE = 20
# The section menu of every page: URL name (with its arguments) and title.
SECTIONS = (("governance:overview", {}, "My memory"), ("governance:consent", {}, "Consent"),
            ("governance:retention", {}, "Retention"), ("governance:agent_list", {}, "Agents"),
            ("governance:conversation_list", {}, "Conversations"),
            ("governance:item_list", {"kind": "facts"}, "Browse"), ("governance:correction_list", {}, "Corrections"),
            ("governance:held_list", {}, "Held for you"), ("governance:access_list", {}, "Access log"),
            ("governance:export_list", {}, "Export"),
            ("governance:erase", {}, "Erase"))


def _subject(request):
    return memory_services.subject_get_or_create(user=request.user)


def _page(request, template: str, title: str, **context):
    sections = [(reverse(name, kwargs=kwargs), section) for name, kwargs, section in SECTIONS]
    return render(request, template, {"title": title, "site_header": "Memory portal", "is_nav_sidebar_enabled": False,
                                      "kind_titles": KIND_TITLES, "sections": sections, **context})


@login_required
@require_GET
def overview(request):
    subject = _subject(request)
    grants = selectors.grant_list(subject=subject).filter(revoked_at__isnull=True)
    # What an agent with access may not use, so the person sees why it does not remember something.
    withdrawn = [
        (grant.agent.name, category_label(category)) for grant in grants
        for consented in [memory_selectors.consented_categories(subject=subject, agent=grant.agent)]
        for category in CATEGORIES if category not in consented
    ]
    conversations = memory_selectors.conversation_list(user_id=subject.user_id, limit=5)
    return _page(
        request, "governance/overview.html", "My memory",
        counts=_counts(subject),
        conversations=_named_agents(conversations),
        grants=grants, last_export=selectors.export_list(subject=subject).first(),
        ready_exports=[job for job in selectors.export_list(subject=subject) if job.is_downloadable],
        pending_erasure=selectors.erasure_pending(subject=subject),
        paused=[g for g in grants if g.paused_at], withdrawn=withdrawn,
        tombstones=selectors.tombstone_list(subject=subject)[:5],
        proposed_corrections=memory_selectors.correction_list(subject=subject, status="proposed").count(),
        held=memory_selectors.held_list(subject=subject, status=HeldStatus.HELD).count(),
        instructions=memory_selectors.standing_instructions(user_id=subject.user_id),
    )


def _counts(subject) -> list[tuple[str, str, int]]:
    """Return how many conversations, messages, facts... the subject has: (kind, its title, count)."""
    return [(name, KIND_TITLES.get(name, name.capitalize()), n)
            for name, n in selectors.node_counts(user_id=subject.user_id).items()]


def _named_agents(conversations: list[dict]) -> list[dict]:
    names = selectors.agent_names(agent_ids={c["agent_id"] for c in conversations})
    return [{**c, "agent": names.get(c["agent_id"], c["agent_id"])} for c in conversations]


@login_required
@require_http_methods(["GET", "POST"])
def consent(request):
    subject = _subject(request)
    if request.method == "POST":
        category, agent_id = request.POST.get("category", ""), request.POST.get("agent", "")
        granted = request.POST.get("granted") == "1"
        agent = None
        if agent_id:
            agent = selectors.grant_list(subject=subject).filter(agent__agent_id=agent_id).first()
            if agent is None:
                raise Http404("No agent with that id has access to your memory.")
            agent = agent.agent
        try:
            memory_services.consent_record(subject=subject, agent=agent, category=category, granted=granted,
                                           actor=request.user)
        except ApplicationError as exc:
            messages.error(request, exc.message)
            return redirect("governance:consent")
        who, what = agent.name if agent else "all agents", category_label(category).lower()
        if granted:
            messages.success(request, f"Consent to {what} granted for {who}.")
            return redirect("governance:consent")
        messages.warning(request, f"Consent to {what} withdrawn for {who}: "
                                  "agents can no longer store or read it. What is already stored is still there.")
        return redirect("governance:consent_erase", category=category)
    return _page(request, "governance/consent.html", "Consent",
                 matrix=selectors.consent_matrix(subject=subject),
                 categories=[(c, CATEGORY_LABELS[c], CATEGORY_HELP[c]) for c in CATEGORIES],
                 ledger=Paginator(selectors.consent_ledger(subject=subject), 50).get_page(request.GET.get("page")))


@login_required
@require_http_methods(["GET", "POST"])
def consent_erase(request, category):
    if category not in CATEGORIES:
        raise Http404("No such category.")
    subject = _subject(request)
    if request.method == "POST":
        job = services.erasure_request(subject=subject, scope=ErasureScope.CATEGORY, category=category)
        messages.info(request, f"Erasing your {category_label(category).lower()}.")
        return redirect("governance:erasure_detail", public_id=job.public_id)
    return _page(request, "governance/consent_erase.html", f"Erase your {category_label(category).lower()}?",
                 category=category, category_title=category_label(category),
                 counts=selectors.node_counts(user_id=subject.user_id))


@login_required
@require_GET
def agent_list(request):
    return _page(request, "governance/agent_list.html", "Agents", grants=selectors.grant_list(subject=_subject(request)),
                 untrusted_writes=UNTRUSTED_WRITES)


@login_required
@require_POST
def agent_pause(request, agent_id):
    grant = found(selectors.grant_get, subject=_subject(request), agent_id=agent_id)
    if request.POST.get("action") == "resume":
        services.grant_resume(grant=grant, actor=request.user)
        messages.success(request, f"{grant.agent.name} is resumed: it can use your memory again.")
    else:
        services.grant_pause(grant=grant, actor=request.user)
        messages.warning(request, f"{grant.agent.name} is paused: it can neither read nor write your memory.")
    return redirect("governance:agent_list")


@login_required
@require_http_methods(["GET", "POST"])
def agent_revoke(request, agent_id):
    subject = _subject(request)
    grant = found(selectors.grant_get, subject=subject, agent_id=agent_id)
    if request.method == "POST":
        memory_services.grant_revoke(subject=subject, agent=grant.agent, actor=request.user)
        messages.success(request, f"{grant.agent.name} no longer has access to your memory.")
        return redirect("governance:agent_list")
    return _page(request, "governance/agent_revoke.html", f"Revoke {grant.agent.name}?", grant=grant)


@login_required
@require_GET
def conversation_list(request):
    subject = _subject(request)
    return _page(request, "governance/conversation_list.html", "Conversations",
                 conversations=_named_agents(memory_selectors.conversation_list(user_id=subject.user_id, limit=200)))


@login_required
@require_GET
def conversation_detail(request, uid):
    subject = _subject(request)
    conversation = found(memory_selectors.conversation_get, user_id=subject.user_id, uid=uid)
    turns = selectors.turn_contexts(subject=subject, session_id=conversation["session_id"])
    conversation["messages"] = [{**m, "contexts": turns.get(m["seq"], [])} for m in conversation["messages"]]
    # A context served the turn whose first message takes its seq; until that message is stored it is pending.
    conversation["pending"] = [c for seq, served in turns.items() if seq > (conversation["last_seq"] or 0)
                               for c in served]
    agent = selectors.agent_names(agent_ids={conversation["agent_id"]}).get(conversation["agent_id"])
    return _page(request, "governance/conversation_detail.html", conversation["title"] or conversation["session_id"],
                 conversation=conversation, agent=agent or conversation["agent_id"])


@login_required
@require_GET
def item_list(request, kind):
    subject = _subject(request)
    text = request.GET.get("q", "").strip()[:SEARCH_MAX_CHARS]
    if text:
        page = {"items": memory_selectors.item_search(user_id=subject.user_id, kind=kind, text=text), "next": None}
    else:
        try:
            page = memory_selectors.item_list(user_id=subject.user_id, kind=kind, cursor=request.GET.get("cursor"),
                                              limit=50)
        except ApplicationError as exc:
            raise Http404(exc.message)
    page["items"] = selectors.kept_until(subject=subject, kind=kind, items=page["items"])
    return _page(request, "governance/item_list.html", kind_get(kind).title, kind=kind, page=page, q=text)


@login_required
@require_GET
def item_detail(request, kind, uid):
    subject = _subject(request)
    user_id = subject.user_id
    item = found(memory_selectors.item_get, user_id=user_id, kind=kind, uid=uid)
    [item] = selectors.kept_until(subject=subject, kind=kind, items=[item])
    extra = {"uses": selectors.item_uses(subject=subject, uid=uid)}
    if kind == ENTITIES.name:
        extra["neighbourhood"] = selectors.entity_neighbourhood(user_id=user_id, uid=uid)
    elif kind == TRACES.name:
        extra["steps"] = memory_selectors.trace_steps(user_id=user_id, uid=uid)
    extra["corrections"] = memory_selectors.item_corrections(subject=subject, uid=uid)
    extra["correctable"] = kind in memory_services.CORRECTABLE
    return _page(request, "governance/item_detail.html", kind_get(kind).item_title, kind=kind,
                 list_title=kind_get(kind).title, item=item, fields=_fields(kind, item), **extra)


def _fields(kind: str, item: dict) -> list[tuple[str, object]]:
    """Return the item's stored fields that hold something, agents named, who corrected it in words."""

    fields = [(name, item.get(name)) for name in (*kind_get(kind).fields, "source")
              if item.get(name) not in (None, "", [])]
    by = item.get("corrected_by") or ""
    agents = selectors.agent_names(agent_ids={item.get("agent_id"), *(part.removeprefix("agent ")
                                                                      for part in by.split(", accepted by "))})
    named = {"corrected_by": lambda value: provenance(value, agent_names=agents),
             "agent_id": lambda value: agents.get(value, value)}
    return [(name, named[name](value) if name in named else value) for name, value in fields]


@login_required
@require_http_methods(["GET", "POST"])
def item_forget(request, kind, uid):
    user_id = _subject(request).user_id
    item = found(memory_selectors.item_get, user_id=user_id, kind=kind, uid=uid)
    if request.method == "POST":
        deleted = found(memory_services.item_delete, user_id=user_id, kind=kind, uid=uid, actor=request.user)
        messages.success(request, f"Forgotten: {deleted} item{'s' if deleted != 1 else ''} deleted, "
                                  "including what was derived only from it.")
        return redirect("governance:item_list", kind=kind)
    return _page(request, "governance/item_forget.html", "Forget this item?", kind=kind,
                 list_title=kind_get(kind).title, item=item)


@login_required
@require_http_methods(["GET", "POST"])
def retention(request):
    subject = _subject(request)
    if request.method == "POST":
        raw = request.POST.get("days", "").strip()
        try:
            days = int(raw) if raw else None
            services.retention_choose(subject=subject, category=request.POST.get("category", ""), days=days,
                                      actor=request.user)
        except ValueError:
            messages.error(request, "Give the number of days as a whole number.")
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, "Saved: what is older is no longer given to agents nor shown, and is deleted "
                                      "within the hour." if days else "Saved: kept as long as staff keep it.")
        return redirect("governance:retention")
    rows = [{**row, "title": category_label(row["category"])} for row in selectors.retention_overview(subject=subject)]
    return _page(request, "governance/retention.html", "Retention", rows=rows)


@login_required
@require_GET
def access_list(request):
    subject = _subject(request)
    page = Paginator(selectors.access_list(subject=subject), ACCESSES_PER_PAGE).get_page(request.GET.get("page"))
    return _page(request, "governance/access_list.html", "Access log", page=page,
                 accesses=selectors.access_page(subject=subject, accesses=list(page)))


@login_required
@require_http_methods(["GET", "POST"])
def export_list(request):
    subject = _subject(request)
    if request.method == "POST":
        job = services.export_request(subject=subject, actor=request.user)
        messages.info(request, "Your export is being prepared.")
        return redirect("governance:export_detail", public_id=job.public_id)
    return _page(request, "governance/export_list.html", "Export", exports=selectors.export_list(subject=subject))


@login_required
@require_GET
def export_detail(request, public_id):
    job = found(selectors.export_get, subject=_subject(request), public_id=public_id)
    return _page(request, "governance/export_detail.html", "Export", job=job,
                 refresh=job.status in (JobStatus.QUEUED, JobStatus.RUNNING))


@login_required
@require_GET
def export_download(request, public_id):
    job = found(selectors.export_get, subject=_subject(request), public_id=public_id)
    if not job.is_downloadable:
        raise Http404("This export is not ready or has expired.")
    path = selectors.export_path(job=job)
    return FileResponse(path.open("rb"), as_attachment=True, filename=f"memory-export-{job.created_at:%Y%m%d}.zip",
                        content_type="application/zip")


@login_required
@require_http_methods(["GET", "POST"])
def erase(request):
    subject = _subject(request)
    if request.method == "POST":
        job = services.erasure_request(subject=subject, scope=ErasureScope.ALL)
        messages.info(request, "Erasing your memory. Your agents are paused until it has finished.")
        return redirect("governance:erasure_detail", public_id=job.public_id)
    return _page(request, "governance/erase.html", "Erase my memory?", counts=_counts(subject),
                 exports=selectors.export_list(subject=subject).count(),
                 accesses=selectors.access_list(subject=subject).count(),
                 grants=selectors.grant_list(subject=subject).filter(revoked_at__isnull=True))


@login_required
@require_GET
def erasure_detail(request, public_id):
    job = found(selectors.erasure_get, subject=_subject(request), public_id=public_id)
    return _page(request, "governance/erasure_detail.html", "Erasure", job=job,
                 tombstone=getattr(job, "tombstone", None), disk_due=receipts.disk_step_due(),
                 receipt_url=reverse("governance:erasure_receipt", kwargs={"public_id": job.public_id}),
                 refresh=job.status in (JobStatus.QUEUED, JobStatus.RUNNING))


@login_required
@require_GET
def erasure_receipt(request, public_id):
    job = found(selectors.erasure_get, subject=_subject(request), public_id=public_id)
    return receipt_response(job, unfinished=reverse("governance:erasure_detail", args=[public_id]))


def receipt_response(job, *, unfinished: str) -> HttpResponse:
    """Return the erasure's latest signed receipt as a file to keep; until the erasure has finished, send the reader
    to `unfinished` (its page, which says how it goes)."""
    tombstone = getattr(job, "tombstone", None)
    if tombstone is None or not tombstone.receipt:
        return redirect(unfinished)
    response = JsonResponse(tombstone.receipt, json_dumps_params={"indent": 2, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="erasure-receipt-{job.public_id}.json"'
    return response


@require_http_methods(["GET", "POST"])
def receipt_verify(request):
    """Check a receipt someone kept: intact and signed by this portal, or not. No sign-in: it holds no content."""
    form = ReceiptVerifyForm(request.POST or None, request.FILES or None)
    verdict = form.verdict() if request.method == "POST" and form.is_valid() else None
    return _page(request, "governance/receipt_verify.html", "Check an erasure receipt", form=form, verdict=verdict,
                 public_key=receipts.public_key_pem(), key_id=receipts.key_id())


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request):
    subject = _subject(request)
    if request.method == "POST":
        job = services.erasure_request(subject=subject, scope=ErasureScope.ACCOUNT)
        logout(request)
        return redirect("governance:account_deleted", public_id=job.public_id)
    return _page(request, "governance/account_delete.html", "Delete my account?", counts=_counts(subject))


@require_GET
def account_deleted(request, public_id):
    job = found(selectors.account_tombstone_get, public_id=public_id)
    return _page(request, "governance/account_deleted.html", "Account deleted", job=job,
                 tombstone=getattr(job, "tombstone", None), disk_due=receipts.disk_step_due(),
                 receipt_url=reverse("governance:account_deleted_receipt", kwargs={"public_id": job.public_id}),
                 refresh=job.status in (JobStatus.QUEUED, JobStatus.RUNNING), home=reverse("home"))


@require_GET
def account_deleted_receipt(request, public_id):
    return receipt_response(found(selectors.account_tombstone_get, public_id=public_id),
                            unfinished=reverse("governance:account_deleted", args=[public_id]))


# --- corrections ------------------------------------------------------------------------------

@login_required
@require_http_methods(["GET", "POST"])
def item_correct(request, kind, uid):
    subject = _subject(request)
    if kind not in memory_services.CORRECTABLE:
        raise Http404("Only facts, preferences and entities can be corrected.")
    item = found(memory_selectors.item_get, user_id=subject.user_id, kind=kind, uid=uid)
    form = CorrectionForm(request.POST or None, kind=kind, item=item)
    if request.method == "POST" and form.is_valid():
        try:
            correction = memory_services.correction_create(subject=subject, kind=kind, uid=uid, value=form.changes(),
                                                           reason=form.cleaned_data["reason"], actor=request.user)
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Corrected: agents now get the corrected version; the old one is kept in "
                                      "its history and can be brought back by undoing the correction.")
            return redirect("governance:item_detail", kind=kind, uid=correction.version_uid)
    return _page(request, "governance/item_correct.html", f"Correct this {kind_get(kind).item_title.lower()}",
                 kind=kind, list_title=kind_get(kind).title, item=item, form=form)


@login_required
@require_GET
def correction_list(request):
    subject = _subject(request)
    corrections = memory_selectors.correction_list(subject=subject)
    proposed = [c for c in corrections if c.status == "proposed"]
    page = Paginator(corrections, 50).get_page(request.GET.get("page"))
    uids: dict[str, set[str]] = {}
    for c in [*proposed, *page]:
        uids.setdefault(c.kind, set()).update({c.target_uid, c.version_uid} - {""})
    texts = memory_selectors.item_texts(user_id=subject.user_id, uids=uids)
    return _page(request, "governance/correction_list.html", "Corrections",
                 proposed=[(c, texts.get(c.target_uid)) for c in proposed],
                 corrections=page, rows=[(c, texts.get(c.version_uid) or texts.get(c.target_uid)) for c in page])


def _correction_decide(request, public_id, decide, done: str):
    correction = found(memory_selectors.correction_get, subject=_subject(request), public_id=public_id)
    correction = correction_decide(request, correction=correction, decide=decide, done=done)
    if correction.status == "proposed" or not correction.version_uid:
        return redirect("governance:correction_list")
    return redirect("governance:item_detail", kind=correction.kind,
                    uid=correction.target_uid if correction.status == "undone" else correction.version_uid)


@login_required
@require_POST
def correction_accept(request, public_id):
    return _correction_decide(request, public_id, memory_services.correction_accept,
                              "Correction accepted: agents now get the corrected version.")


@login_required
@require_POST
def correction_reject(request, public_id):
    return _correction_decide(request, public_id, memory_services.correction_reject,
                              "Correction rejected: nothing was changed.")


@login_required
@require_POST
def correction_undo(request, public_id):
    return _correction_decide(request, public_id, memory_services.correction_undo,
                              "Correction undone: the version before it is back.")


@login_required
@require_GET
def held_list(request):
    subject = _subject(request)
    decided = memory_selectors.held_list(subject=subject).exclude(status=HeldStatus.HELD).order_by("-decided_at", "-pk")
    return _page(request, "governance/held_list.html", "Held for you",
                 waiting=memory_selectors.held_list(subject=subject, status=HeldStatus.HELD),
                 decided=Paginator(decided, 50).get_page(request.GET.get("page")))


@login_required
@require_POST
def held_decide(request, public_id, decision):
    held = found(memory_selectors.held_get, subject=_subject(request), public_id=public_id)
    try:
        held = memory_services.held_decide(held=held, decision=decision, actor=request.user)
    except ApplicationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, HELD_DECIDED[held.status])
    return redirect("governance:held_list")


@login_required
@require_POST
def agent_untrusted_writes(request, agent_id):
    grant = found(selectors.grant_get, subject=_subject(request), agent_id=agent_id)
    policy = request.POST.get("policy", "")
    try:
        memory_services.grant_untrusted_writes_set(grant=grant, policy=policy, actor=request.user)
    except ApplicationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, UNTRUSTED_WRITES_SAID[policy].format(agent=grant.agent.name))
    return redirect("governance:agent_list")


@login_required
@require_POST
def agent_correct(request, agent_id):
    grant = found(selectors.grant_get, subject=_subject(request), agent_id=agent_id)
    allowed = request.POST.get("allowed") == "1"
    memory_services.grant_correction_allow(grant=grant, allowed=allowed, actor=request.user)
    if allowed:
        messages.warning(request, f"{grant.agent.name} may now correct your memory without asking you first.")
    else:
        messages.success(request, f"{grant.agent.name} can only propose corrections; you decide on each.")
    return redirect("governance:agent_list")
