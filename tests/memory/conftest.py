"""Subjects, agents and authenticated API clients for the memory tests."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from memory import services
from memory.models import SCOPES, Agent

_ids = itertools.count(1)


@pytest.fixture
def make_subject(db):
    def make(email=None):
        n = next(_ids)
        user = get_user_model().objects.create_user(username=f"person{n}", email=email or f"person{n}@example.com")
        return services.subject_get_or_create(user=user)

    return make


@pytest.fixture
def make_agent(db):
    """Return (agent, bearer token) for a new agent with the given scopes (all by default)."""

    def make(scopes=SCOPES, **fields):
        n = next(_ids)
        agent = Agent.objects.create(agent_id=f"agent-{n}", name=f"Agent {n}", scopes=list(scopes), **fields)
        _, secret = services.agent_token_issue(agent=agent)
        return agent, secret

    return make


@pytest.fixture
def api_for():
    def make(secret):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        return client

    return make


@pytest.fixture
def granted(make_subject, make_agent, api_for):
    """A subject who granted one agent access; returns (subject, agent, client)."""
    subject = make_subject()
    agent, secret = make_agent()
    services.grant_create(subject=subject, agent=agent)
    return subject, agent, api_for(secret)
