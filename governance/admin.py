"""Erasure on the staff admin site: the jobs, and a staff member's erasure on a person's request."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path

from governance import selectors, services
from governance.models import ErasureJob, ErasureScope, JobStatus
from memory.models import RetentionPolicy
from memory.selectors import subject_find
from portal.audit import audit_record
from portal.exceptions import ApplicationError

ERASE = "review.erase_subjects"


class ErasureRequestForm(forms.Form):
    user = forms.CharField(label="User (id or email)", max_length=254)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000)


@admin.register(ErasureJob)
class ErasureJobAdmin(admin.ModelAdmin):
    list_display = ("public_id", "scope", "category", "status", "nodes_deleted", "created_at", "finished_at")
    list_filter = ("status", "scope")
    readonly_fields = list_display
    actions = ["residue_delete"]

    def has_erase_permission(self, request):
        return request.user.has_perm(ERASE)

    @admin.action(description="Delete what the residue scan found (nodes no one owns), then check again",
                  permissions=["erase"])
    def residue_delete(self, request, queryset):
        """Finish failed erasures whose only residue is the person's content in nodes without an owner."""
        for job in queryset.select_related("tombstone"):
            try:
                services.erasure_residue_delete(job=job, actor=request.user)
            except ApplicationError as exc:
                messages.error(request, f"Erasure {job.public_id}: {exc.message}")
                continue
            if job.status == JobStatus.DONE:
                messages.success(request, f"Erasure {job.public_id} is done: nothing of the person is left.")
            else:
                messages.warning(request, f"Erasure {job.public_id}: {job.tombstone.residue['content']} place(s) "
                                          "still hold the person's content.")

    def has_module_permission(self, request):
        return request.user.has_perm(ERASE)

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm(ERASE)

    def has_add_permission(self, request):
        return False  # a job is created by requesting an erasure, below

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # the job is the record that an erasure happened

    def get_urls(self):
        return [
            path("request/", self.admin_site.admin_view(self.erasure_request_view), name="governance_erasure_request"),
            *super().get_urls(),
        ]

    def erasure_request_view(self, request):
        """Show what would be erased for a person, then queue the erasure with the staff member's reason."""
        if not request.user.has_perm(ERASE):
            raise PermissionDenied
        form = ErasureRequestForm(request.POST or request.GET or None)
        subject = None
        if form.is_valid():
            subject = subject_find(text=form.cleaned_data["user"])
            if subject is None:
                form.add_error("user", "No user with that id or email.")
        if request.method == "POST" and subject is not None:
            job = services.erasure_request(subject=subject, scope=ErasureScope.ALL, actor=request.user,
                                           reason=form.cleaned_data["reason"])
            messages.success(request, f"Erasure queued for {subject.account.email}; a worker erases it and leaves "
                                      f"a tombstone (job {job.public_id}).")
            return redirect("admin:governance_erasurejob_changelist")
        counts = selectors.node_counts(user_id=subject.user_id) if subject else None
        context = {**self.admin_site.each_context(request), "opts": self.opts, "title": "Erase a user's memory",
                   "form": form, "person": subject, "counts": counts}
        return TemplateResponse(request, "admin/governance/erasurejob/erasure_request.html", context)


@admin.register(RetentionPolicy)
class RetentionPolicyAdmin(admin.ModelAdmin):
    """Staff set how long each category is kept, and a stricter retention for an agent; each change is audited."""

    list_display = ("category", "agent", "days", "updated_at")
    list_filter = ("category",)
    list_select_related = ("agent",)
    ordering = ("category", "agent__name")

    def save_model(self, request, obj, form, change):
        before = {field: form.initial.get(field) for field in form.changed_data} if change else {}
        super().save_model(request, obj, form, change)
        audit_record(actor=request.user, action="retention.policy", target_type="retention",
                     target_id=f"{obj.category}:{obj.agent.agent_id if obj.agent else '*'}", before=before,
                     after={"category": obj.category, "agent": obj.agent.agent_id if obj.agent else None,
                            "days": obj.days})

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # one at a time, so each deletion is audited
        return actions

    def delete_model(self, request, obj):
        audit_record(actor=request.user, action="retention.policy", target_type="retention",
                     target_id=f"{obj.category}:{obj.agent.agent_id if obj.agent else '*'}",
                     before={"days": obj.days}, after={"days": None, "deleted": True})
        super().delete_model(request, obj)
