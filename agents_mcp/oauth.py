"""The authorization server's vocabulary and rules on top of django-oauth-toolkit: the scopes a client may ask
for, in words a person reads, and refreshes refused once the person revoked the client."""

from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.scopes import BaseScopes

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


class PortalOAuth2Validator(OAuth2Validator):
    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        # A client the person revoked (on /me/agents/) must ask them again, not refresh.
        return (super().validate_refresh_token(refresh_token, client, request, *args, **kwargs)
                and selectors.connection_granted(application=client, user=request.user))
