from dataclasses import dataclass

from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect
from django.urls import reverse
from neo4j.exceptions import ServiceUnavailable, SessionExpired

CONTENT = "review.view_memory_content"
# Counts above this show as "999+": the admin lists the apps on every page, so their cost stays bounded.
REVIEW_COUNT_CAP = 999
# What a change list's search reads of the search box: SQLite refuses a LIKE pattern of some thousands.
ADMIN_SEARCH_MAX_CHARS = 200


class BoundedSearchAdmin(admin.ModelAdmin):
    """A model admin whose search reads at most ADMIN_SEARCH_MAX_CHARS of what was typed."""

    def get_search_results(self, request, queryset, search_term):
        return super().get_search_results(request, queryset, search_term[:ADMIN_SEARCH_MAX_CHARS])


@dataclass(frozen=True)
class ReviewPage:
    """A row of the Review section: the page's URL name, the permissions its view requires, and the
    `review_counts()` key whose number the row shows (with what the number means)."""

    title: str
    url_name: str
    perms: tuple[str, ...]
    count: str = ""
    counted: str = ""


REVIEW_PAGES = (
    ReviewPage("Merge queue", "review_merge_list", ("review.review_merges", CONTENT), "pending_merges", "pending"),
    ReviewPage("Decided merges", "review_merge_decided", ("review.review_merges", CONTENT)),
    ReviewPage("Fact timelines", "review_fact_timeline", ("review.review_facts", CONTENT), "facts_to_confirm",
               "to confirm"),
    ReviewPage("Proposed corrections", "review_correction_list", ("review.review_facts", CONTENT),
               "corrections_proposed", "waiting"),
    ReviewPage("Traces", "review_trace_list", ("review.review_traces", CONTENT), "traces"),
    ReviewPage("Audit log", "review_audit_list", ("review.view_auditevent",)),
    ReviewPage("Staff erasure", "governance_erasure_request", ("review.erase_subjects",)),
)


class PortalAdminSite(admin.AdminSite):
    """The staff admin site; sign-in goes through allauth so MFA applies to staff too."""

    site_header = "Memory portal administration"
    site_title = "Memory portal"
    index_title = "Governance"

    def login(self, request, extra_context=None):
        if request.user.is_authenticated and not self.has_permission(request):
            return redirect("home")
        return redirect_to_login(request.GET.get("next", request.get_full_path()))

    def get_urls(self):
        from review.urls import review_urls

        return review_urls(self) + super().get_urls()

    def _build_app_dict(self, request, label=None):
        """Add the Review section, as an app whose rows are its pages, to the index and the sidebar."""
        app_dict = super()._build_app_dict(request, label)
        pages = [page for page in REVIEW_PAGES if request.user.has_perms(page.perms)] if label is None else []
        if not pages:
            return app_dict
        counts = self._review_counts(request) if any(page.count for page in pages) else {}
        app_dict["review"] = {
            "name": "Review",
            "app_label": "review",
            "app_url": reverse("admin:review_index", current_app=self.name),
            "has_module_perms": True,
            "models": [self._review_row(page, counts) for page in pages],
        }
        return app_dict

    def _review_row(self, page: ReviewPage, counts: dict) -> dict:
        name = page.title
        if page.count in counts:
            number = f"{REVIEW_COUNT_CAP}+" if counts[page.count] > REVIEW_COUNT_CAP else counts[page.count]
            name += " (" + f"{number} {page.counted}".strip() + ")"
        return {"model": None, "name": name, "object_name": page.url_name,
                "admin_url": reverse(f"admin:{page.url_name}", current_app=self.name), "add_url": None,
                "view_only": True, "perms": {"add": False, "change": False, "delete": False, "view": True}}

    def _review_counts(self, request) -> dict:
        """Read the counts once per request (the index and its sidebar both list the apps); none if Neo4j is down."""
        from review.selectors import review_counts

        if not hasattr(request, "review_counts"):
            try:
                request.review_counts = review_counts(cap=REVIEW_COUNT_CAP)
            except (ServiceUnavailable, SessionExpired):
                request.review_counts = {}
        return request.review_counts
