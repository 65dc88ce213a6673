"""Signed-in people with memory in every store, for the governance tests."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.text import slugify
from rest_framework.test import APIClient

from governance import selectors as governance_selectors
from memory import ingest, selectors, services
from memory.models import SCOPES, Agent, Subject

_ids = itertools.count(1)


def seed_memory(*, subject: Subject, agent: Agent, word: str = "ALPACA") -> dict:
    """Append a conversation of two messages as the agent would and extract each as the worker would, then
    record a trace with a step and a tool call; return the uids by kind.

    The person's message states where they work (a fact about a company it mentions), where that company
    is headquartered (a related city, and a fact of it) and a preference; the reply mentions the city.
    """
    session_id = f"chat-{word}"
    results = services.messages_append(subject=subject, agent=agent, session_id=session_id, messages=[
        {"role": "user", "content": f"I work at {word} Corp. {word} Corp is headquartered in {word}ville. "
                                    f"I like {word} tea."},
        {"role": "assistant", "content": f"Noted: {word}ville is lovely."},
    ])
    message, reply = (result["uid"] for result in results)
    for uid in (message, reply):
        assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    trace = services.trace_start(subject=subject, agent=agent, session_id=session_id, task=f"look up {word}")
    services.trace_step_add(subject=subject, trace_uid=trace, thought=f"search {word}", action="search",
                            observation=f"found {word} Corp", tool_calls=[
                                {"tool_name": "search", "arguments": {}, "result": word, "status": "success"}])
    services.trace_complete(subject=subject, trace_uid=trace, outcome="found", success=True)

    def uid_of(kind: str, field: str, value: str) -> str:
        return next(item["uid"] for item in selectors.item_list(user_id=subject.user_id, kind=kind)["items"]
                    if item[field] == value)

    conversation = next(c["uid"] for c in governance_selectors.conversation_list(user_id=subject.user_id)
                        if c["session_id"] == session_id)
    return {"conversation": conversation, "messages": message, "reply": reply,
            "facts": uid_of("facts", "predicate", "EMPLOYED_BY"),
            "preferences": uid_of("preferences", "preference", f"likes {word} tea"),
            "entities": uid_of("entities", "name", f"{word} Corp"), "city": uid_of("entities", "name", f"{word}ville"),
            "traces": trace}


@pytest.fixture
def person(db):
    """Return a factory of (user, subject, signed-in Client, seeded uids) with one agent granted."""

    def make(word="ALPACA", *, client_class=Client, **client_kwargs):
        n = next(_ids)
        user = get_user_model().objects.create_user(username=f"gov{n}", email=f"gov{n}@example.com",
                                                    password="a-long-passphrase-1")
        subject = services.subject_get_or_create(user=user)
        agent = Agent.objects.create(agent_id=f"gov-agent-{n}", name=f"Helper {n}", scopes=list(SCOPES))
        _, secret = services.agent_token_issue(agent=agent)
        services.grant_create(subject=subject, agent=agent, actor=user)
        client = client_class(**client_kwargs)
        client.force_login(user)
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        return {"user": user, "subject": subject, "agent": agent, "client": client, "api": api,
                "items": seed_memory(subject=subject, agent=agent, word=word)}

    return make


@pytest.fixture
def browser_person(chromium, live_server, browser_sign_in):
    """Return a factory of a person signed in in the browser with one agent granted, and that agent's API
    (a Playwright request context holding its token): {"user", "subject", "agent", "page", "api"}."""
    pw, _ = chromium
    contexts = []

    def make(username: str, *, agent_name: str) -> dict:
        user, page = browser_sign_in(username)
        subject = services.subject_get_or_create(user=user)
        agent = Agent.objects.create(agent_id=slugify(agent_name), name=agent_name, scopes=list(SCOPES))
        _, secret = services.agent_token_issue(agent=agent)
        services.grant_create(subject=subject, agent=agent, actor=user)
        api = pw.request.new_context(base_url=live_server.url, extra_http_headers={"Authorization": f"Bearer {secret}"})
        contexts.append(api)
        return {"user": user, "subject": subject, "agent": agent, "page": page, "api": api}

    yield make
    for api in contexts:
        api.dispose()
