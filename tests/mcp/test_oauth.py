"""The authorization server's edges, through the endpoints an MCP client calls: registration refuses what the
server's metadata does not offer, every refusal of the token endpoint is OAuth's JSON error, and a client the
person revoked asks them again."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from oauth2_provider.models import get_application_model

from tests.support.mcp import REDIRECT, oauth_authorize, oauth_register, oauth_token

pytestmark = pytest.mark.django_db


def oauth_client() -> Client:
    """A client of the authorization server: no cookies, and CSRF checked as for any caller."""
    return Client(enforce_csrf_checks=True)


def _oauth_error(response, status: int, error: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"] == "application/json", response.content[:300]
    body = response.json()
    assert body["error"] == error and body["error_description"], body
    return body


def test_registration_refuses_every_grant_type_the_metadata_does_not_offer():
    client = oauth_client()
    offered = client.get("/.well-known/oauth-authorization-server").json()
    assert set(offered["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    for grant_type in ("client_credentials", "password", "implicit", "urn:ietf:params:oauth:grant-type:device_code"):
        body = _oauth_error(oauth_register(client, grant_types=[grant_type]), 400, "invalid_client_metadata")
        assert grant_type in body["error_description"]
    body = _oauth_error(oauth_register(client, response_types=["token"]), 400, "invalid_client_metadata")
    assert "token" in body["error_description"]
    assert get_application_model().objects.count() == 0
    registered = oauth_register(client)
    assert registered.status_code == 201 and registered.json()["grant_types"] == ["authorization_code", "refresh_token"]


def test_a_client_registered_for_a_grant_the_server_does_not_offer_is_refused_in_json():
    # Registered before registration refused it: such rows may exist.
    application = get_application_model().objects.create(
        name="Old robot", client_type="confidential", authorization_grant_type="client-credentials",
        client_secret="robot-secret", hash_client_secret=False)
    response = oauth_client().post("/oauth/token/", {"grant_type": "client_credentials",
                                                     "client_id": application.client_id, "client_secret": "robot-secret"})
    _oauth_error(response, 400, "unauthorized_client")


def test_a_nul_character_is_refused_in_json_by_every_endpoint_a_client_calls():
    client = oauth_client()
    registered = oauth_register(client).json()
    for path, data in (("/oauth/token/", {"grant_type": "authorization_code", "code": "a\x00b",
                                          "client_id": registered["client_id"]}),
                       ("/oauth/token/", {"grant_type": "refresh_token\x00", "refresh_token": "x"}),
                       ("/oauth/revoke_token/", {"token": "\x00", "client_id": registered["client_id"]})):
        _oauth_error(client.post(path, data), 400, "invalid_request")
    _oauth_error(client.get("/oauth/token/?x=%00"), 400, "invalid_request")
    _oauth_error(oauth_register(client, client_name="a\x00b"), 400, "invalid_client_metadata")
    _oauth_error(oauth_register(client, redirect_uris=[REDIRECT + "\x00"]), 400, "invalid_client_metadata")


def test_a_client_the_person_revoked_must_ask_again_even_with_approval_prompt_auto():
    user = get_user_model().objects.create_user(username="reconnects", email="reconnects@example.com")
    browser, client = Client(), oauth_client()
    browser.force_login(user)
    registered = oauth_register(client).json()
    code = oauth_authorize(browser, registered["client_id"], allow=True)
    token = oauth_token(client, registered["client_id"], code)
    assert token.status_code == 200, token.content
    # Approved and still granted: "auto" skips the page, as the person already said yes.
    assert oauth_authorize(browser, registered["client_id"], approval_prompt="auto").status_code == 302

    [agent] = [grant.agent for grant in user.subject.grants.all()]
    assert browser.post(f"/me/agents/{agent.agent_id}/revoke/").status_code == 302
    again = oauth_authorize(browser, registered["client_id"], approval_prompt="auto")
    assert again.status_code == 200 and b'id="authorization-form"' in again.content



def test_a_method_an_endpoint_does_not_answer_is_refused_in_json():
    client = oauth_client()
    for method, path in (("get", "/oauth/token/"), ("put", "/oauth/revoke_token/"), ("get", "/oauth/register/")):
        _oauth_error(getattr(client, method)(path), 405, "invalid_request")
