"""Signed-in people with memory in every store, for the governance tests."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.text import slugify
from rest_framework.test import APIClient

from memory import services
from memory.models import SCOPES, Agent
from tests.support.governance import seed_memory

_ids = itertools.count(1)


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
