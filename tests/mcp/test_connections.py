"""A client connected again is the same agent of the person's: whether it kept its registration or registered itself
anew (as many clients do on each start), /me/agents/ lists it once; another client, or another person, is another
agent."""

import pytest
from django.contrib.auth import get_user_model
from oauth2_provider.models import get_application_model, get_refresh_token_model

from agents_mcp import services
from memory.models import Agent
from tests.support.mcp import EVERYTHING

pytestmark = pytest.mark.django_db


def register(name: str, redirect: str = "http://127.0.0.1:33418/callback"):
    """Register a client as RFC 7591 dynamic registration does: a new application each time."""
    return get_application_model().objects.create(name=name, client_type="public", redirect_uris=redirect,
                                                  authorization_grant_type="authorization-code")


def test_a_client_connected_again_stays_one_agent():
    person, other = (get_user_model().objects.create_user(username=n, email=f"{n}@example.com") for n in ("p", "o"))
    first = services.connection_approve(application=register("Desk assistant"), user=person, scopes=list(EVERYTHING))
    old_refresh = get_refresh_token_model().objects.create(user=person, application=first.application, token="r1",
                                                           access_token=None)
    same_registration = services.connection_approve(application=first.application, user=person,
                                                    scopes=["context:read", "history"])
    registered_again = services.connection_approve(application=register("Desk assistant"), user=person,
                                                   scopes=["context:read", "messages:write", "history"])
    assert same_registration.agent == registered_again.agent == first.agent
    assert registered_again.agent.scopes == ["context:read", "messages:write"]
    old_refresh.refresh_from_db()
    assert old_refresh.revoked is not None  # the earlier registration cannot act beside the new one

    elsewhere = services.connection_approve(application=register("Desk assistant", "http://127.0.0.1:9/cb"),
                                            user=person, scopes=["context:read"])
    other_client = services.connection_approve(application=register("Notes app"), user=person, scopes=["context:read"])
    theirs = services.connection_approve(application=register("Desk assistant"), user=other, scopes=["context:read"])
    assert len({first.agent, elsewhere.agent, other_client.agent, theirs.agent}) == 4
    assert Agent.objects.filter(name="Desk assistant", grants__subject__account=person).count() == 2
