import logging
import time

import redis
from rest_framework.throttling import BaseThrottle

from memory.models import AgentToken
from portal.redis_clients import app_redis

logger = logging.getLogger(__name__)


class AgentRateThrottle(BaseThrottle):
    """A fixed one-minute window per agent, counted in Redis so every web node shares it.

    With Redis down the limit is not enforced (and a warning is logged): a counter outage must not
    refuse reads; writes still need Redis for their conversation lock and answer 503 on their own.
    """

    def allow_request(self, request, view):
        if not isinstance(request.auth, AgentToken):
            return True
        agent = request.auth.agent
        window = int(time.time() // 60)
        key = f"ratelimit:{agent.pk}:{window}"
        self.retry_after = 60 - int(time.time() % 60)
        pipe = app_redis().pipeline(transaction=False)  # one round trip
        pipe.incr(key)
        pipe.expire(key, 120)  # the key names its minute; it only has to outlive it
        try:
            count, _ = pipe.execute()
        except (redis.ConnectionError, redis.TimeoutError):
            logger.warning("Rate limit not enforced for agent %s: Redis is unavailable.", agent.agent_id)
            return True
        return count <= agent.rate_limit_per_minute

    def wait(self):
        return self.retry_after
