"""knowledge_context: the knowledge section the context endpoint puts next to memory."""

import re

import pytest

from knowledge import cypher
from knowledge.models import RetrievalProfile
from knowledge.selectors import KnowledgeItem, knowledge_context, knowledge_item_format
from memory import services
from memory.embeddings import get_embedder
from portal.exceptions import AccessDenied
from portal.tokens import count_tokens

pytestmark = pytest.mark.django_db
QUERY = "refrigerated freight capacity for frozen meals"


@pytest.fixture
def agent_with_profile(make_profile, make_agent):
    profile = make_profile(
        name="company-context", mode=RetrievalProfile.Mode.HYBRID, retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL
    )
    profile.save()
    agent, _ = make_agent()
    profile.agents.add(agent)
    return agent, profile


def test_lines_read_score_then_metadata_then_text(knowledge_graph, agent_with_profile):
    agent, profile = agent_with_profile

    items = knowledge_context(agent=agent, profile_name=profile.name, query=QUERY, top_k=3, token_budget=2000)

    assert len(items) == 3 and [i["type"] for i in items] == ["knowledge"] * 3
    assert re.match(
        r"\[Score: 1\.000\] \[company: Brightmoor Foods Corp\.\] "
        r"\[document: Brightmoor Foods Corp\. annual report 2025\] "
        r"\[risks: [^\]]+\] \[products: [^\]]+\] Harbour Kitchen frozen meals travel",
        items[0]["text"],
    )
    assert items[0]["id"] == "demo-doc-brightmoor-2025-4" and items[0]["score"] == 1.0
    assert items[0]["provenance"]["profile"] == profile.name
    assert items[0]["provenance"]["company"] == "Brightmoor Foods Corp."


def test_the_token_budget_is_kept(knowledge_graph, agent_with_profile):
    agent, profile = agent_with_profile
    everything = knowledge_context(agent=agent, profile_name=profile.name, query=QUERY, top_k=5, token_budget=16000)
    budget = count_tokens(everything[0]["text"]) + count_tokens(everything[1]["text"])

    items = knowledge_context(agent=agent, profile_name=profile.name, query=QUERY, top_k=5, token_budget=budget)

    assert items == everything[:2]


def test_a_vector_already_made_for_the_text_is_searched_instead_of_embedding_it(knowledge_graph, make_profile, make_agent):
    profile = make_profile(name="vector-only", mode=RetrievalProfile.Mode.VECTOR)
    profile.save()
    agent, _ = make_agent()
    profile.agents.add(agent)
    battery_fire = get_embedder().embed(["a battery fire at a customer site"])[0].tolist()

    own = knowledge_context(agent=agent, profile_name=None, query=QUERY, top_k=1, token_budget=500)
    given = knowledge_context(agent=agent, profile_name=None, query=QUERY, top_k=1, token_budget=500,
                              embedded={QUERY: battery_fire})

    assert own[0]["id"] == "demo-doc-brightmoor-2025-4"
    assert given[0]["id"].startswith("demo-doc-northwind-")  # its two battery-fire chunks score nearly alike


def test_without_a_name_the_agents_first_profile_is_used(knowledge_graph, agent_with_profile):
    agent, _ = agent_with_profile

    assert knowledge_context(agent=agent, profile_name=None, query=QUERY, top_k=1, token_budget=500)


def test_an_agent_without_profiles_gets_nothing(knowledge_graph, make_agent):
    agent, _ = make_agent()

    assert knowledge_context(agent=agent, profile_name=None, query=QUERY, top_k=3, token_budget=500) == []


def test_a_profile_not_given_to_the_agent_is_refused(knowledge_graph, agent_with_profile, make_agent):
    _, profile = agent_with_profile
    stranger, _ = make_agent()

    with pytest.raises(AccessDenied):
        knowledge_context(agent=stranger, profile_name=profile.name, query=QUERY, top_k=3, token_budget=500)


def test_format_skips_empty_metadata_and_joins_lists():
    item = KnowledgeItem(score=0.8921, text="Chunk.", metadata={"company": "Acme", "risks": ["a", "b"], "products": []})

    assert knowledge_item_format(item=item) == "[Score: 0.892] [company: Acme] [risks: a, b] Chunk."


def test_the_context_endpoint_puts_knowledge_next_to_memory(knowledge_graph, agent_with_profile, make_subject, api_for):
    agent, profile = agent_with_profile
    subject = make_subject()
    services.grant_create(subject=subject, agent=agent)
    _, secret = services.agent_token_issue(agent=agent)
    client = api_for(secret)
    client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": "We ship frozen meals from Leeds every Monday."}]}, format="json")
    body = client.post("/api/v1/context", {
        "user_id": subject.user_id, "session_id": "s2", "query": QUERY, "include": {"knowledge": True},
        "knowledge_profile": profile.name, "token_budget": 400}, format="json").json()
    knowledge = [i for i in body["items"] if i["type"] == "knowledge"]
    assert knowledge and knowledge[0]["text"].startswith("[Score: ")
    assert "Knowledge:" in body["context"] and "Brightmoor Foods" in body["context"]
    assert any(i["type"] == "message" for i in body["items"])  # memory is still there
    assert body["token_count"] <= 400

    plain = client.post("/api/v1/context", {"user_id": subject.user_id, "query": QUERY}, format="json").json()
    assert not [i for i in plain["items"] if i["type"] == "knowledge"]  # only when asked for


def test_an_agent_without_knowledge_scope_is_refused_knowledge(knowledge_graph, make_subject, make_agent, api_for):
    subject = make_subject()
    agent, secret = make_agent(scopes=["context:read"])
    services.grant_create(subject=subject, agent=agent)
    response = api_for(secret).post("/api/v1/context", {
        "user_id": subject.user_id, "query": QUERY, "include": {"knowledge": True}}, format="json")
    assert response.status_code == 403 and "knowledge:read" in response.json()["message"]


def test_the_context_searches_what_the_knowledge_search_does_for_the_same_messages(
        knowledge_graph, agent_with_profile, make_subject, api_for):
    agent, profile = agent_with_profile
    profile.message_window = 1
    profile.save()
    subject = make_subject()
    services.grant_create(subject=subject, agent=agent)
    _, secret = services.agent_token_issue(agent=agent)
    client = api_for(secret)
    messages = [{"role": "user", "content": "Tell me about battery fires at customer sites."},
                {"role": "assistant", "content": "Which company?"},
                {"role": "user", "content": QUERY}, {"role": "user", "content": "   "}]

    searched = client.post("/api/v1/knowledge/search", {"profile": profile.name, "messages": messages,
                                                        "top_k": 3}, format="json").json()
    context = client.post("/api/v1/context", {
        "user_id": subject.user_id, "messages": messages, "include": {"knowledge": True},
        "knowledge_profile": profile.name, "limits": {"knowledge": 3}, "token_budget": 4000}, format="json").json()

    assert searched["query"] == QUERY  # the window of one skips the blank message
    assert [i["id"] for i in context["items"] if i["type"] == "knowledge"] == [i["uid"] for i in searched["items"]]
