"""Count each agent's API calls and failed calls in Redis, for the usage columns of the agent admin."""

import logging

import redis

from memory.models import AgentToken
from portal.redis_clients import app_redis

logger = logging.getLogger(__name__)


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
            try:
                pipe.execute()
            except (redis.ConnectionError, redis.TimeoutError):  # a lost count must not fail the call
                logger.warning("Usage of agent %s not counted: Redis is unavailable.", token.agent_id)
        return response
