"""The review pages, mounted on the staff admin site as the Review section (review/admin.py).

Each URL is named after its operation, as its view, service and Cypher are: `review_merge_approve`
-> views.merge_approve -> services.merge_approve -> cypher.MERGE_APPROVE.
"""

from django.urls import path

from review import views


def review_urls(site) -> list:
    """Return the review pages under review/, each behind the site's staff check and framed as its pages."""

    pages = [
        ("", views.index, "review_index"),
        ("merges/", views.merge_list, "review_merge_list"),
        ("merges/approve/", views.merge_approve, "review_merge_approve"),
        ("merges/reject/", views.merge_reject, "review_merge_reject"),
        ("merges/decided/", views.merge_decided, "review_merge_decided"),
        ("merges/<str:user_id>/<str:from_uid>/<str:into_uid>/undo/", views.merge_undo, "review_merge_undo"),
        ("facts/", views.fact_timeline, "review_fact_timeline"),
        ("facts/as-of/", views.fact_as_of, "review_fact_as_of"),
        ("facts/<str:user_id>/<str:uid>/revert/", views.fact_revert, "review_fact_revert"),
        ("facts/<str:user_id>/<str:uid>/confirm/", views.fact_confirm, "review_fact_confirm"),
        ("facts/<str:user_id>/<str:uid>/correct/", views.fact_correct, "review_fact_correct"),
        ("corrections/", views.correction_list, "review_correction_list"),
        ("corrections/<uuid:public_id>/accept/", views.correction_accept, "review_correction_accept"),
        ("corrections/<uuid:public_id>/reject/", views.correction_reject, "review_correction_reject"),
        ("held/", views.held_list, "review_held_list"),
        ("held/<uuid:public_id>/<slug:decision>/", views.held_decide, "review_held_decide"),
        ("traces/", views.trace_list, "review_trace_list"),
        ("traces/<str:user_id>/<str:uid>/", views.trace_detail, "review_trace_detail"),
        ("traces/<str:user_id>/<str:uid>/delete/", views.trace_delete, "review_trace_delete"),
        ("audit/", views.audit_list, "review_audit_list"),
        ("audit/export.csv", views.audit_export, "review_audit_export"),
    ]
    return [path(f"review/{route}", site.admin_view(views.on_site(view, site)), name=name)
            for route, view, name in pages]
