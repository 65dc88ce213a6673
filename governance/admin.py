"""Erasure on the staff admin site: the jobs, and a staff member's erasure on a person's request."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from governance import selectors, services
from governance.views import receipt_response
from governance.models import ErasureJob, ErasureScope, JobStatus
from memory.models import CATEGORIES, RetentionPolicy
from memory.selectors import subject_find
from memory.wording import category_label
from portal.admin_pages import AdminPage
from portal.audit import audit_record
from portal.exceptions import ApplicationError

ERASE = "review.erase_subjects"
admin.site.section_page_add("review", AdminPage("Erasure requests", "governance_erasure_request", (ERASE,)))


class ErasureRequestForm(forms.Form):
    user = forms.CharField(label="User (id or email)", max_length=254)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000)


def _category(obj) -> str:
    return category_label(obj.category) if obj.category else ""


class CategoryFilter(admin.SimpleListFilter):
    """Filter by consent category, named as people read it."""

    title = "category"
    parameter_name = "category"

    def lookups(self, request, model_admin):
        return [(c, category_label(c)) for c in CATEGORIES]

    def queryset(self, request, queryset):
        return queryset.filter(category=self.value()) if self.value() else queryset


@admin.register(ErasureJob)
class ErasureJobAdmin(admin.ModelAdmin):
    list_display = ("created_at", "scope", "category_label", "status", "nodes_deleted")
    list_filter = ("status", "scope", CategoryFilter)
    fields = readonly_fields = ("job_id", "created_at", "scope", "category_label", "status", "nodes_deleted",
                                "finished_at", "error", "receipt")

    @admin.display(description="category")
    def category_label(self, job):
        return _category(job)

    @admin.display(description="job id")
    def job_id(self, job):
        return format_html("<code>{}</code>", job.public_id)

    @admin.display(description="receipt")
    def receipt(self, job):
        tombstone = getattr(job, "tombstone", None)
        if tombstone is None or not tombstone.receipt:
            return "none yet: the erasure has not finished"
        return format_html('<a href="{}">Download the signed receipt</a>',
                           reverse("admin:governance_erasurejob_receipt", args=[job.pk]))

    actions = ["residue_delete"]

    def has_erase_permission(self, request):
        return request.user.has_perm(ERASE)

    @admin.action(description="Finish: delete the residue found",
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
            path("<int:job_id>/receipt/", self.admin_site.admin_view(self.receipt_view),
                 name="governance_erasurejob_receipt"),
            *super().get_urls(),
        ]

    def receipt_view(self, request, job_id):
        """Download an erasure's signed receipt, as the person can."""
        if not request.user.has_perm(ERASE):
            raise PermissionDenied
        job = ErasureJob.objects.filter(pk=job_id).select_related("tombstone").first()
        if job is None:
            raise Http404("No erasure with that id.")
        return receipt_response(job, unfinished=reverse("admin:governance_erasurejob_change", args=[job.pk]))

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
            services.erasure_request(subject=subject, scope=ErasureScope.ALL, actor=request.user,
                                     reason=form.cleaned_data["reason"])
            messages.success(request, f"Erasure queued for {subject.account.email}: their memory is erased from every "
                                      "store, checked, and an erasure record kept.")
            return redirect("admin:governance_erasurejob_changelist")
        counts = selectors.node_counts(user_id=subject.user_id) if subject else None
        context = {**self.admin_site.each_context(request), "opts": self.opts, "title": "Erasure requests",
                   "form": form, "person": subject, "counts": counts}
        return TemplateResponse(request, "admin/governance/erasurejob/erasure_request.html", context)


@admin.register(RetentionPolicy)
class RetentionPolicyAdmin(admin.ModelAdmin):
    """Staff set how long each category is kept, and a stricter retention for an agent; each change is audited."""

    list_display = ("category_label", "agent", "days", "updated_at")
    list_filter = (CategoryFilter,)
    list_select_related = ("agent",)
    ordering = ("category", "agent__name")

    @admin.display(description="category", ordering="category")
    def category_label(self, policy):
        return _category(policy)

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "category":
            kwargs["choices"] = [(c, category_label(c)) for c in CATEGORIES]
        return super().formfield_for_choice_field(db_field, request, **kwargs)

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
