from django.urls import path

from memory.api import views

app_name = "memory-api"

urlpatterns = [
    path("context", views.ContextBuildApi.as_view(), name="context"),
    path("conversations/<str:session_id>/messages", views.MessageAppendApi.as_view(), name="message_append"),
    path("traces", views.TraceStartApi.as_view(), name="trace_start"),
    path("traces/<str:trace_uid>/steps", views.TraceStepAddApi.as_view(), name="trace_step_add"),
    path("traces/<str:trace_uid>/complete", views.TraceCompleteApi.as_view(), name="trace_complete"),
    path("users/<str:user_id>/<kind:kind>/", views.ItemListApi.as_view(), name="item_list"),
    path("users/<str:user_id>/<kind:kind>/search", views.ItemSearchApi.as_view(), name="item_search"),
    path("users/<str:user_id>/<kind:kind>/<str:uid>", views.ItemDetailApi.as_view(), name="item_detail"),
    path("users/<str:user_id>/<kind:kind>/<str:uid>/corrections", views.CorrectionCreateApi.as_view(),
         name="correction_create"),
]
