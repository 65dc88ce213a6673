import hmac

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from memory.access_state import access_state_cached
from memory.models import TOKEN_PREFIX, AgentToken


class AgentTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer mp_<prefix>_<secret>`; sets request.auth to the AgentToken."""

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode(errors="replace").split()
        if not header or header[0] != self.keyword:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header; expected 'Bearer <token>'.")
        token = header[1]
        parts = token.split("_", 2)
        if len(parts) != 3 or parts[0] != TOKEN_PREFIX:
            raise exceptions.AuthenticationFailed("Invalid token.")
        prefix = parts[1]
        record = access_state_cached(
            key=("token", prefix), load=lambda: AgentToken.objects.select_related("agent").filter(prefix=prefix).first())
        if record is None or not hmac.compare_digest(record.digest, AgentToken.digest_of(token)):
            raise exceptions.AuthenticationFailed("Invalid token.")
        if record.revoked_at is not None:
            raise exceptions.AuthenticationFailed("This token has been revoked.")
        if record.expires_at is not None and record.expires_at <= timezone.now():
            raise exceptions.AuthenticationFailed("This token has expired.")
        if not record.agent.is_active:
            raise exceptions.AuthenticationFailed("This agent is deactivated.")
        # One write a minute at most (per process: the record is cached): not a row update on every call.
        now = timezone.now()
        if record.last_used_at is None or (now - record.last_used_at).total_seconds() > 60:
            AgentToken.objects.filter(pk=record.pk).update(last_used_at=now)
            record.last_used_at = now
        return (None, record)

    def authenticate_header(self, request):
        return self.keyword


class AgentTokenScheme(OpenApiAuthenticationExtension):
    target_class = AgentTokenAuthentication
    name = "agentToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "mp_<prefix>_<secret>"}
