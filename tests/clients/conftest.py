"""The portal served over real HTTP, and an agent with a token that a subject has granted access."""

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model

from memory import services
from memory.models import SCOPES, Agent


@dataclass
class Portal:
    base_url: str
    token: str
    user_id: str


@pytest.fixture
def make_portal(live_server, transactional_db):
    """Return a factory of (portal URL, bearer token, granted subject's user_id) for a fresh agent."""
    made = []

    def make(**agent_fields) -> Portal:
        n = len(made) + 1
        user = get_user_model().objects.create_user(username=f"client{n}", email=f"client{n}@example.com")
        subject = services.subject_get_or_create(user=user)
        agent = Agent.objects.create(agent_id=f"client-agent-{n}", name=f"Client agent {n}", scopes=list(SCOPES),
                                     **agent_fields)
        _, token = services.agent_token_issue(agent=agent)
        services.grant_create(subject=subject, agent=agent)
        made.append(Portal(base_url=live_server.url, token=token, user_id=subject.user_id))
        return made[-1]

    return make


@pytest.fixture
def portal(make_portal) -> Portal:
    return make_portal()
