import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from agents_mcp.models import ClientConnection
from agents_mcp.oauth import ACTIONS
from memory import services as memory_services
from memory.models import CATEGORIES, Agent, AgentToken
from portal.audit import audit_record


@transaction.atomic
def connection_approve(*, application, user, scopes: list[str]) -> ClientConnection:
    """Connect a client to the person's memory as they approved it: an agent of its own with the actions they
    chose, granted by them, consenting to the categories they chose and to no other."""
    subject = memory_services.subject_get_or_create(user=user)
    actions = [scope for scope in ACTIONS if scope in scopes]
    connection = ClientConnection.objects.select_related("agent").filter(application=application,
                                                                         subject=subject).first()
    if connection is None:
        connection = _connection_reregistered(application=application, subject=subject)
    if connection is None:
        name = (application.name or "MCP client")[:120]
        agent = Agent.objects.create(agent_id=f"{slugify(name)[:48] or 'mcp-client'}-{secrets.token_hex(3)}",
                                     name=name, scopes=actions)
        connection = ClientConnection.objects.create(application=application, subject=subject, agent=agent)
    else:
        connection.agent.scopes = actions
        connection.agent.save(update_fields=["scopes"])
    memory_services.grant_create(subject=subject, agent=connection.agent, actor=user)
    for category in CATEGORIES:
        if category not in scopes:
            memory_services.consent_record(subject=subject, agent=connection.agent, category=category, granted=False,
                                           actor=user)
    audit_record(actor=user, action="client.connect", user_id=subject.user_id, target_type="agent",
                 target_id=connection.agent.agent_id, after={"client": application.client_id, "scopes": actions,
                                                             "categories": [c for c in CATEGORIES if c in scopes]})
    return connection


def _connection_reregistered(*, application, subject) -> ClientConnection | None:
    """Return the person's connection of the same client registered before (same name, same redirect URIs), moved to
    its new registration: a client that registers itself again on every start stays one agent of theirs. What the
    old registration was given is revoked, so it cannot act beside the new one."""
    connection = (ClientConnection.objects.select_related("agent", "application")
                  .filter(subject=subject, application__name=application.name,
                          application__redirect_uris=application.redirect_uris)
                  .order_by("-created_at").first())
    if connection is None:
        return None
    for refresh in get_refresh_token_model().objects.filter(application=connection.application, revoked__isnull=True):
        refresh.revoke()
    for access in get_access_token_model().objects.filter(application=connection.application):
        access.revoke()
    connection.application = application
    connection.save(update_fields=["application"])
    return connection


def connection_token_issue(request) -> str:
    """Issue the agent token that a connected client's OAuth access token is: django-oauth-toolkit's
    ACCESS_TOKEN_GENERATOR, called with the token request (its client and the person who approved it)."""
    connection = ClientConnection.objects.select_related("agent").get(application=request.client,
                                                                      subject__account=request.user)
    _, secret = memory_services.agent_token_issue(
        agent=connection.agent, name="OAuth access token", actor=request.user,
        expires_at=timezone.now() + timedelta(seconds=request.expires_in))
    return secret


def connection_token_revoke(*, digest: str) -> None:
    """Revoke the agent token an OAuth access token was, when the authorization server deletes it (revoked,
    or replaced by a refresh); both keep the same SHA-256 digest of the secret."""
    for token in AgentToken.objects.select_related("agent").filter(digest=digest, revoked_at__isnull=True):
        memory_services.agent_token_revoke(token=token)
