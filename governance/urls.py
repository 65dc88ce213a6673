from django.urls import path

from governance import views

app_name = "governance"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("consent/", views.consent, name="consent"),
    path("consent/<str:category>/erase/", views.consent_erase, name="consent_erase"),
    path("retention/", views.retention, name="retention"),
    path("agents/", views.agent_list, name="agent_list"),
    path("agents/<slug:agent_id>/pause/", views.agent_pause, name="agent_pause"),
    path("agents/<slug:agent_id>/revoke/", views.agent_revoke, name="agent_revoke"),
    path("agents/<slug:agent_id>/correct/", views.agent_correct, name="agent_correct"),
    path("agents/<slug:agent_id>/untrusted-writes/", views.agent_untrusted_writes, name="agent_untrusted_writes"),
    path("held/", views.held_list, name="held_list"),
    path("held/<uuid:public_id>/<slug:decision>/", views.held_decide, name="held_decide"),
    path("conversations/", views.conversation_list, name="conversation_list"),
    path("conversations/<str:uid>/", views.conversation_detail, name="conversation_detail"),
    path("memory/<kind:kind>/", views.item_list, name="item_list"),
    path("memory/<kind:kind>/<str:uid>/", views.item_detail, name="item_detail"),
    path("memory/<kind:kind>/<str:uid>/forget/", views.item_forget, name="item_forget"),
    path("memory/<kind:kind>/<str:uid>/correct/", views.item_correct, name="item_correct"),
    path("corrections/", views.correction_list, name="correction_list"),
    path("corrections/<uuid:public_id>/accept/", views.correction_accept, name="correction_accept"),
    path("corrections/<uuid:public_id>/reject/", views.correction_reject, name="correction_reject"),
    path("corrections/<uuid:public_id>/undo/", views.correction_undo, name="correction_undo"),
    path("access/", views.access_list, name="access_list"),
    path("export/", views.export_list, name="export_list"),
    path("export/<uuid:public_id>/", views.export_detail, name="export_detail"),
    path("export/<uuid:public_id>/download/", views.export_download, name="export_download"),
    path("erase/", views.erase, name="erase"),
    path("erasures/<uuid:public_id>/", views.erasure_detail, name="erasure_detail"),
    path("erasures/<uuid:public_id>/receipt/", views.erasure_receipt, name="erasure_receipt"),
    path("delete-account/", views.account_delete, name="account_delete"),
    path("deleted/<uuid:public_id>/", views.account_deleted, name="account_deleted"),
    path("deleted/<uuid:public_id>/receipt/", views.account_deleted_receipt, name="account_deleted_receipt"),
    path("receipts/verify/", views.receipt_verify, name="receipt_verify"),
]
