"""The authorization server's vocabulary and rules on top of django-oauth-toolkit: the scopes a client may ask
for, in words a person reads, refreshes refused once the person revoked the client, only the grants its metadata
offers, and its refusals in OAuth's JSON error shape."""

from django.http import JsonResponse
from oauthlib.oauth2.rfc6749.errors import UnauthorizedClientError
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.scopes import BaseScopes
from oauth2_provider.settings import oauth2_settings

from agents_mcp import selectors

# What a client may do (the agent scopes) and which of the person's memory it may use (consent categories).
ACTIONS = {
    "context:read": "Read your memory to answer you: recent turns, what you said before, facts and preferences",
    "messages:write": "Remember your conversations with it",
    "traces:write": "Keep notes of how it worked on your tasks",
    "memory:correct": "Propose corrections to your memory (you decide on each)",
    "knowledge:read": "Search the shared knowledge base (no personal data)",
    "memory:forget": "Forget things in your memory when you ask it to (this cannot be undone)",
}
CATEGORIES = {
    "history": "Your conversations",
    "long_term": "What it learns about you: facts, preferences, people and places",
    "reasoning": "How it worked on your tasks",
}
# What a client that names no scope is offered; forgetting is never offered unless a client asks for it.
DEFAULT = ("context:read", "messages:write", "traces:write", "history", "long_term", "reasoning")
OFF_BY_DEFAULT = ("memory:forget",)


class PortalScopes(BaseScopes):
    def get_all_scopes(self):
        return ACTIONS | CATEGORIES

    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        return list(ACTIONS | CATEGORIES)

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        return list(DEFAULT)


def oauth_error(error: str, description: str, *, status: int = 400, headers: dict | None = None) -> JsonResponse:
    """Return a refusal in OAuth's error shape (RFC 6749 section 5.2, RFC 7591 section 3.2.2)."""
    return JsonResponse({"error": error, "error_description": description}, status=status, headers=headers)


def client_metadata_refusal(metadata) -> str | None:
    """Say what in a client's registration metadata this server does not offer (its metadata document's grant and
    response types) or cannot store (a NUL character), or None when nothing is."""
    if not isinstance(metadata, dict):
        return None  # django-oauth-toolkit refuses it
    if _holds_nul(metadata):
        return "A value holds a NUL character, which cannot be stored."
    offered = {"grant_types": oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED,
               "response_types": oauth2_settings.OAUTH2_RESPONSE_TYPES_SUPPORTED}
    for field, supported in offered.items():
        asked = metadata.get(field)
        if isinstance(asked, list):
            for value in asked:
                if isinstance(value, str) and value not in supported:
                    return f"{field}: {value!r} is not offered; this server supports {', '.join(supported)}."
    return None


def _holds_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    return False


class PortalOAuth2Validator(OAuth2Validator):
    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        # A client registered for a grant the metadata does not offer (client credentials: no person to act for)
        # is refused before a token is made for nobody.
        if grant_type not in oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED:
            raise UnauthorizedClientError(request=request, description=(
                f"This server does not offer the {grant_type} grant; it supports "
                f"{', '.join(oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED)}."))
        return super().validate_grant_type(client_id, grant_type, client, request, *args, **kwargs)

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        # A client the person revoked (on /me/agents/) must ask them again, not refresh.
        return (super().validate_refresh_token(refresh_token, client, request, *args, **kwargs)
                and selectors.connection_granted(application=client, user=request.user))
