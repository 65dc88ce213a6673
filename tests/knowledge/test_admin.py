"""The staff admin: profiles are validated on save, and "try a query" shows raw hits and enriched rows."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from knowledge import cypher
from knowledge.graph import CHUNK_FULLTEXT_INDEX, CHUNK_VECTOR_INDEX
from knowledge.models import RetrievalProfile

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_user("staff", "staff@example.com", "pw", is_staff=True, is_superuser=True)
    client.force_login(staff)
    return client


def form_data(**fields):
    return {
        "name": "admin-profile", "description": "", "mode": "hybrid", "vector_index": CHUNK_VECTOR_INDEX,
        "fulltext_index": CHUNK_FULLTEXT_INDEX, "top_k": 5, "effective_search_ratio": 1, "message_window": 5,
        "ranker": "max", "alpha": 0.5, "rrf_k": 60, "retrieval_query": "", **fields,
    }


def test_a_writing_retrieval_query_is_refused_on_save(staff_client):
    data = form_data(retrieval_query="SET node.flag = true RETURN node.text AS text, score")

    response = staff_client.post(reverse("admin:knowledge_retrievalprofile_add"), data)

    assert response.status_code == 200
    assert "retrieval queries must only read" in response.content.decode()
    assert not RetrievalProfile.objects.exists()


def test_a_valid_profile_is_saved(staff_client):
    response = staff_client.post(reverse("admin:knowledge_retrievalprofile_add"),
                                 form_data(retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL))

    assert response.status_code == 302
    assert RetrievalProfile.objects.get().retrieval_query == cypher.COMPANY_CONTEXT_RETRIEVAL


def test_try_a_query_shows_raw_hits_and_enriched_rows(knowledge_graph, staff_client, make_profile):
    profile = make_profile(mode="hybrid", retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL)
    profile.save()
    url = reverse("admin:knowledge_retrievalprofile_try", args=[profile.pk])

    change_page = staff_client.get(reverse("admin:knowledge_retrievalprofile_change", args=[profile.pk]))
    assert change_page.content.decode().count(url) == 1
    page = staff_client.post(url, {"query": "battery fire", "top_k": 2}).content.decode()

    assert "Raw hits (2)" in page and "Enriched rows (2)" in page
    assert "Northwind Grid Storage Ltd." in page and "Battery fire incidents" in page


def test_try_a_query_is_for_staff_only(client, make_profile):
    profile = make_profile()
    profile.save()

    response = client.get(reverse("admin:knowledge_retrievalprofile_try", args=[profile.pk]))

    assert response.status_code == 302 and "/admin/login/" in response["Location"]
