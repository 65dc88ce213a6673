import time

from django.core.cache import cache
from rest_framework.throttling import BaseThrottle

from memory.models import AgentToken


class AgentRateThrottle(BaseThrottle):
    """A fixed one-minute window per agent, counted in Redis so every web node shares it."""

    def allow_request(self, request, view):
        if not isinstance(request.auth, AgentToken):
            return True
        agent = request.auth.agent
        window = int(time.time() // 60)
        key = f"ratelimit:{agent.pk}:{window}"
        cache.add(key, 0, timeout=120)
        count = cache.incr(key)
        self.retry_after = 60 - int(time.time() % 60)
        return count <= agent.rate_limit_per_minute

    def wait(self):
        return self.retry_after
