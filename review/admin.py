"""The Review section of the staff admin site, and agents with their tokens, gated by `review.manage_agents`."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

from memory import services as memory_services
from memory.models import Agent, AgentToken
from memory.wording import SCOPE_LABELS
from portal.admin_pages import AdminPage, AdminSection, BoundedSearchAdmin
from review import selectors
from review.forms import AgentForm, TokenIssueForm
from review.urls import review_urls
from review.views import CONTENT

MANAGE = "review.manage_agents"
REVIEW_PAGES = (
    AdminPage("Merge proposals", "review_merge_list", ("review.review_merges", CONTENT), "pending_merges", "pending"),
    AdminPage("Superseded facts", "review_fact_timeline", ("review.review_facts", CONTENT), "facts_to_confirm",
              "to confirm"),
    AdminPage("Proposed corrections", "review_correction_list", ("review.review_facts", CONTENT),
              "corrections_proposed", "waiting"),
    AdminPage("Held memory", "review_held_list", ("review.review_facts", CONTENT), "held_waiting", "waiting"),
    AdminPage("Reasoning traces", "review_trace_list", ("review.review_traces", CONTENT), "traces"),
    AdminPage("Decided merges", "review_merge_decided", ("review.review_merges", CONTENT)),
    AdminPage("Audit log", "review_audit_list", ("review.view_auditevent",)),
)
admin.site.section_register(AdminSection(label="review", name="Review", index="review_index", pages=REVIEW_PAGES,
                                         urls=review_urls, counts=selectors.review_counts))


@admin.register(Agent)
class AgentAdmin(BoundedSearchAdmin):
    # No filter column: at 1,280 px the list needs its width (a search finds an agent by name or id).
    list_display = ("name", "agent_id", "scope_list", "rate_limit", "active", "calls", "errors", "context_reads",
                    "last_use")
    search_fields = ("agent_id", "name")
    form = AgentForm
    change_form_template = "review/agent_change_form.html"

    def has_module_permission(self, request):
        return request.user.has_perm(MANAGE)

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm(MANAGE)

    def has_add_permission(self, request):
        return request.user.has_perm(MANAGE)

    def has_change_permission(self, request, obj=None):
        return request.user.has_perm(MANAGE)

    def has_delete_permission(self, request, obj=None):
        return False  # an agent is deactivated, so its grants, consent and access log keep their meaning

    def get_queryset(self, request):
        return selectors.agent_list_with_usage()

    @admin.display(description="it may")
    def scope_list(self, agent):
        return format_html_join(mark_safe("<br>"), "{}", ((SCOPE_LABELS.get(scope, scope),) for scope in agent.scopes))

    @admin.display(description="limit / min", ordering="rate_limit_per_minute")
    def rate_limit(self, agent):
        return agent.rate_limit_per_minute

    @admin.display(description="active", boolean=True, ordering="is_active")
    def active(self, agent):
        return agent.is_active

    @admin.display(description="calls")
    def calls(self, agent):
        return selectors.agent_counters(agent=agent)["calls"]

    @admin.display(description="failed")
    def errors(self, agent):
        return selectors.agent_counters(agent=agent)["errors"]

    @admin.display(description="reads", ordering="context_reads")
    def context_reads(self, agent):
        return agent.context_reads

    @admin.display(description="last use")
    def last_use(self, agent):
        return max(filter(None, [agent.last_token_use, agent.last_read]), default=None)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        tokens = AgentToken.objects.filter(agent_id=object_id).order_by("-created_at")
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), "tokens": tokens})

    def get_urls(self):
        return [
            path("<int:agent_pk>/tokens/issue/", self.admin_site.admin_view(self.token_issue_view),
                 name="memory_agent_token_issue"),
            path("<int:agent_pk>/tokens/<int:token_pk>/revoke/", self.admin_site.admin_view(self.token_revoke_view),
                 name="memory_agent_token_revoke"),
            *super().get_urls(),
        ]

    def _context(self, request, agent, title, **extra):
        return {**self.admin_site.each_context(request), "opts": self.model._meta, "original": agent,
                "title": title, **extra}

    def token_issue_view(self, request, agent_pk):
        """Issue a token and show its secret on the response page, once; only its digest is stored."""

        if not request.user.has_perm(MANAGE):
            raise PermissionDenied
        agent = get_object_or_404(Agent, pk=agent_pk)
        form = TokenIssueForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            token, secret = memory_services.agent_token_issue(
                agent=agent, name=form.cleaned_data["name"], expires_at=form.cleaned_data["expires_at"],
                actor=request.user)
            response = TemplateResponse(request, "review/token_issued.html",
                                        self._context(request, agent, "Token issued", token=token, secret=secret))
            response["Cache-Control"] = "no-store"
            return response
        return TemplateResponse(request, "review/token_issue.html",
                                self._context(request, agent, f"Issue a token for {agent.name}", form=form))

    def token_revoke_view(self, request, agent_pk, token_pk):
        if not request.user.has_perm(MANAGE):
            raise PermissionDenied
        token = get_object_or_404(AgentToken.objects.select_related("agent"), pk=token_pk, agent_id=agent_pk)
        if request.method == "POST":
            memory_services.agent_token_revoke(token=token, actor=request.user)
            messages.success(request, f"Token {token} revoked: the API refuses it from now on.")
            return redirect(reverse("admin:memory_agent_change", args=[agent_pk]))
        return TemplateResponse(request, "review/token_revoke.html",
                                self._context(request, token.agent, "Revoke this token?", token=token))
