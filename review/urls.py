"""The review pages, mounted on the staff admin site by PortalAdminSite.get_urls()."""

from django.urls import path

from review import views


def review_urls(site) -> list:
    """Return the review pages under review/, each behind the site's staff check."""
    pages = [
        ("", views.index, "review_index"),
        ("merges/", views.merge_list, "review_mergeproposal_list"),
        ("merges/decided/", views.merge_decided, "review_mergeproposal_decided"),
        ("merges/<str:user_id>/<str:from_uid>/<str:into_uid>/undo/", views.merge_undo, "review_mergeproposal_undo"),
        ("facts/", views.fact_timeline, "review_fact_timeline"),
        ("facts/as-of/", views.fact_as_of, "review_fact_asof"),
        ("facts/<str:user_id>/<str:uid>/revert/", views.fact_revert, "review_fact_revert"),
        ("facts/<str:user_id>/<str:uid>/confirm/", views.fact_confirm, "review_fact_confirm"),
        ("traces/", views.trace_list, "review_trace_list"),
        ("traces/<str:user_id>/<str:uid>/", views.trace_detail, "review_trace_detail"),
        ("traces/<str:user_id>/<str:uid>/delete/", views.trace_delete, "review_trace_delete"),
        ("audit/", views.audit_list, "review_auditevent_list"),
        ("audit/export.csv", views.audit_export, "review_auditevent_export"),
        ("erase/", views.subject_erase, "review_subject_erase"),
    ]
    return [path(f"review/{route}", site.admin_view(view), name=name) for route, view, name in pages]
