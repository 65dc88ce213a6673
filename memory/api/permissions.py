from rest_framework.permissions import BasePermission

from memory.models import AgentToken


class HasScope(BasePermission):
    """The request carries an agent token whose agent has `scope`."""

    scope = ""

    @classmethod
    def of(cls, scope: str) -> type["HasScope"]:
        return type(f"HasScope_{scope.replace(':', '_')}", (cls,), {"scope": scope})

    def has_permission(self, request, view):
        if not isinstance(request.auth, AgentToken):
            return False
        self.message = f"This agent lacks the '{self.scope}' scope."
        return self.scope in request.auth.agent.scopes
