"""POST /api/v1/knowledge/search: agents search through the profiles they were given, nothing else."""

import pytest
from django.urls import reverse

from knowledge import cypher
from knowledge.models import RetrievalProfile
from memory.models import SCOPES

pytestmark = pytest.mark.django_db
URL = reverse("knowledge-api:search")


@pytest.fixture
def shared_profile(make_profile, make_agent):
    """A saved enriched profile and a client whose agent may use it."""
    profile = make_profile(mode=RetrievalProfile.Mode.HYBRID, retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL)
    profile.save()
    agent, secret = make_agent()
    profile.agents.add(agent)
    return profile, agent, secret


def test_search_returns_scored_enriched_items(knowledge_graph, shared_profile, api_for):
    profile, _, secret = shared_profile

    response = api_for(secret).post(URL, {"profile": profile.name, "query": "lithium carbonate prices", "top_k": 3},
                                    format="json")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["profile"] == profile.name and len(body["items"]) == 3
    top = body["items"][0]
    assert top["uid"] == "demo-doc-northwind-2025-2"
    assert top["metadata"]["company"] == "Northwind Grid Storage Ltd."
    assert "Lithium carbonate price swings" in top["metadata"]["risks"]
    assert 0 < top["score"] <= 1


def test_messages_make_the_query_without_system_messages(knowledge_graph, shared_profile, api_for):
    profile, _, secret = shared_profile
    messages = [
        {"role": "system", "content": "Always answer about Quillon."},
        {"role": "user", "content": "Tell me about refrigerated freight."},
    ]

    body = api_for(secret).post(URL, {"profile": profile.name, "messages": messages}, format="json").json()

    assert body["query"] == "Tell me about refrigerated freight."
    assert body["items"][0]["metadata"]["company"] == "Brightmoor Foods Corp."


def test_an_agent_without_the_profile_gets_403(knowledge_graph, shared_profile, make_agent, api_for):
    profile, _, _ = shared_profile
    _, other_secret = make_agent()

    response = api_for(other_secret).post(URL, {"profile": profile.name, "query": "battery"}, format="json")

    assert response.status_code == 403
    assert profile.name in response.json()["message"]


def test_an_agent_without_the_scope_gets_403(knowledge_graph, shared_profile, make_agent, api_for):
    profile, _, _ = shared_profile
    agent, secret = make_agent(scopes=[s for s in SCOPES if s != "knowledge:read"])
    profile.agents.add(agent)

    response = api_for(secret).post(URL, {"profile": profile.name, "query": "battery"}, format="json")

    assert response.status_code == 403
    assert "knowledge:read" in response.json()["message"]


def test_an_unknown_profile_is_404(shared_profile, api_for):
    _, _, secret = shared_profile

    assert api_for(secret).post(URL, {"profile": "nope", "query": "x"}, format="json").status_code == 404


def test_no_token_is_401():
    from rest_framework.test import APIClient

    assert APIClient().post(URL, {"profile": "x", "query": "y"}, format="json").status_code == 401


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"query": "x", "user_id": "u1"}, "user_id"),
        ({"query": "x", "top_k": 0}, "top_k"),
        ({"query": "x", "top_k": 101}, "top_k"),
        ({"query": "x", "messages": [{"role": "user", "content": "y"}]}, "query"),
        ({"messages": [{"role": "user", "content": "y", "name": "z"}]}, "messages"),
    ],
)
def test_bad_input_is_400_naming_the_field(shared_profile, api_for, payload, field):
    profile, _, secret = shared_profile

    response = api_for(secret).post(URL, {"profile": profile.name, **payload}, format="json")

    assert response.status_code == 400
    assert field in response.json()["extra"]["fields"]


def test_lucene_syntax_in_the_query_is_searched_literally(knowledge_graph, make_profile, make_agent, api_for):
    # Fulltext alone: under the hybrid max ranker the best vector hit ties the best fulltext hit at 1.0.
    profile = make_profile(mode=RetrievalProfile.Mode.FULLTEXT)
    profile.save()
    agent, secret = make_agent()
    profile.agents.add(agent)

    response = api_for(secret).post(URL, {"profile": profile.name, "query": 'Elmfield") OR (x:[* TO *]'},
                                    format="json")

    assert response.status_code == 200
    assert response.json()["items"][0]["uid"] == "demo-doc-brightmoor-2025-5"
