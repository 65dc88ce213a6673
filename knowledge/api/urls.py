from django.urls import path

from knowledge.api import views

app_name = "knowledge-api"

urlpatterns = [
    path("search", views.KnowledgeSearchApi.as_view(), name="search"),
]
