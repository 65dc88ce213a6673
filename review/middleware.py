"""Count each agent's API calls and failed calls in Redis, for the usage columns of the agent admin."""

from memory.models import AgentToken
from portal.redis_clients import app_redis


def usage_key(agent_pk: int) -> str:
    return f"agent-usage:{agent_pk}"


class AgentUsageMiddleware:
    """After an API response, add one call (and one error for 4xx/5xx) to the calling agent's counters.

    DRF copies the authenticated token onto the Django request, so this sees which agent called.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        token = getattr(request, "auth", None)
        if isinstance(token, AgentToken):
            pipe = app_redis().pipeline(transaction=False)
            pipe.hincrby(usage_key(token.agent_id), "calls", 1)
            if response.status_code >= 400:
                pipe.hincrby(usage_key(token.agent_id), "errors", 1)
            pipe.execute()
        return response
