from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path

from knowledge.models import RetrievalProfile
from knowledge.selectors import knowledge_search
from knowledge.services import retrieval_profile_check
from portal.admin_pages import BoundedSearchAdmin
from portal.exceptions import ApplicationError

# A text column has no length of its own: the form bounds what staff may save.
TEXT_MAX_LENGTHS = {"description": 2000, "retrieval_query": 20000}


class TryQueryForm(forms.Form):
    query = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), max_length=4000)
    top_k = forms.IntegerField(min_value=1, max_value=100, required=False, label="Results",
                               help_text="Defaults to the profile's number of results.")


class RetrievalProfileForm(forms.ModelForm):
    """A profile as staff edit it, checked against the graph once its own fields are valid."""

    class Meta:
        labels = {"top_k": "Results", "rrf_k": "Reciprocal rank constant (k)"}
        help_texts = {"effective_search_ratio": "The vector index is asked for this many times the number of results "
                                                "as candidates (more is slower, more exact)."}

    def _post_clean(self):
        super()._post_clean()
        try:
            retrieval_profile_check(profile=self.instance)
        except ValidationError as problems:
            self._update_errors(problems)


@admin.register(RetrievalProfile)
class RetrievalProfileAdmin(BoundedSearchAdmin):
    form = RetrievalProfileForm
    list_display = ("name", "mode", "ranker", "top_k", "enriched")
    list_filter = ("mode", "ranker")
    search_fields = ("name", "description")
    fieldsets = (
        (None, {"fields": ("name", "description", "agents")}),
        ("Search", {"fields": (
            "mode", "vector_index", "fulltext_index", "top_k", "effective_search_ratio", "message_window",
        )}),
        ("Hybrid ranking", {"fields": ("ranker", "alpha", "rrf_k")}),
        ("Enrichment", {"fields": ("retrieval_query",)}),
    )

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name in TEXT_MAX_LENGTHS:
            kwargs["max_length"] = TEXT_MAX_LENGTHS[db_field.name]
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(boolean=True)
    def enriched(self, profile):
        return bool(profile.retrieval_query.strip())

    def get_urls(self):
        return [
            path(
                "<int:object_id>/try/",
                self.admin_site.admin_view(self.try_query_view),
                name="knowledge_retrievalprofile_try",
            ),
            *super().get_urls(),
        ]

    def try_query_view(self, request, object_id):
        """Run a query through the profile and show the raw hits next to the enriched rows."""
        profile = get_object_or_404(RetrievalProfile, pk=object_id)
        if not self.has_view_permission(request, profile):
            raise PermissionDenied
        form = TryQueryForm(request.POST or None)
        hits = rows = None
        error = None
        if request.method == "POST" and form.is_valid():
            query, top_k = form.cleaned_data["query"], form.cleaned_data["top_k"]
            try:
                hits = knowledge_search(profile=profile, query=query, top_k=top_k, enrich=False)
                if profile.retrieval_query.strip():
                    rows = knowledge_search(profile=profile, query=query, top_k=top_k)
            except ApplicationError as failure:
                error = failure.message
        context = {
            **self.admin_site.each_context(request),
            "title": f"Try a query: {profile.name}",
            "opts": self.opts,
            "original": profile,
            "form": form,
            "hits": hits,
            "rows": rows,
            "error": error,
        }
        return TemplateResponse(request, "admin/knowledge/retrievalprofile/try_query.html", context)
