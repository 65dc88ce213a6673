"""A person who connected an MCP client, the portal served over real HTTP, and the official MCP client."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from oauth2_provider.models import get_application_model

from agents_mcp import services
from memory import services as memory_services
from tests.support.mcp import EVERYTHING, Connected

_ids = itertools.count(1)


@pytest.fixture
def connect(live_server, transactional_db):
    """Return a factory of a person who approved a client (as the consent page does) and that client's token."""

    def make(scopes=EVERYTHING, *, client_name="Test client") -> Connected:
        n = next(_ids)
        user = get_user_model().objects.create_user(username=f"mcp{n}", email=f"mcp{n}@example.com")
        application = get_application_model().objects.create(
            name=client_name, client_type="public", authorization_grant_type="authorization-code",
            redirect_uris="http://127.0.0.1:9/callback")
        connection = services.connection_approve(application=application, user=user, scopes=list(scopes))
        _, token = memory_services.agent_token_issue(agent=connection.agent)
        return Connected(url=f"{live_server.url}/mcp/", token=token, user_id=connection.subject.user_id,
                         agent=connection.agent, subject=connection.subject)

    return make
