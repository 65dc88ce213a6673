from memory.access_state import access_state_cached
from memory.models import Agent, Grant

from agents_mcp.models import ClientConnection


def connection_person(*, agent: Agent) -> str | None:
    """Return the user id of the person a connected client's agent acts for, or None for any other agent."""
    return access_state_cached(key=("connection-person", agent.pk), load=lambda: (
        ClientConnection.objects.filter(agent=agent).values_list("subject__user_id", flat=True).first()))


def connection_granted(*, application, user) -> bool:
    """Tell whether the person still grants the client they connected (a paused one still refreshes)."""
    return Grant.objects.filter(agent__client_connection__application=application,
                                agent__client_connection__subject__account=user,
                                subject__account=user, revoked_at__isnull=True).exists()
