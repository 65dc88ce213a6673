"""Write the audit trail: one row per governance action, on every path that takes it."""

from django.contrib.auth.base_user import AbstractBaseUser

from portal.models import AuditEvent, user_id_digest

Actor = AbstractBaseUser | str | None


def actor_label(actor: Actor) -> str:
    """Return how an actor is named in the graph and the audit trail."""
    if isinstance(actor, AbstractBaseUser):
        return getattr(actor, "email", "") or actor.get_username()
    return actor or ""


def audit_record(*, actor: Actor, action: str, user_id: str = "", target_type: str = "", target_id: str = "",
                 before: dict | None = None, after: dict | None = None, reason: str = "") -> AuditEvent:
    """Record one governance action; an actor given as a string (an agent, a worker, a script) is kept as a label."""
    return AuditEvent.objects.create(
        actor=actor if isinstance(actor, AbstractBaseUser) else None, actor_label=actor_label(actor),
        action=action, subject_digest=user_id_digest(user_id) if user_id else "", target_type=target_type,
        target_id=str(target_id), before=before or {}, after=after or {}, reason=reason,
    )
