"""Writes of the review app: the audit trail, and the review decisions that have no home elsewhere."""

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from neomodel import db

from governance.models import user_id_digest
from memory.cypher import NODE_DELETE
from portal.exceptions import NotFound
from review import cypher
from review.models import AuditEvent

Actor = AbstractBaseUser | str | None


def actor_label(actor: Actor) -> str:
    """Return how an actor is named in the graph and the audit trail."""
    if isinstance(actor, AbstractBaseUser):
        return getattr(actor, "email", "") or actor.get_username()
    return actor or ""


def audit_record(*, actor: Actor, action: str, user_id: str = "", target_type: str = "", target_id: str = "",
                 before: dict | None = None, after: dict | None = None, reason: str = "") -> AuditEvent:
    """Record one governance action; an actor given as a string (a worker, a script) is kept as a label."""
    return AuditEvent.objects.create(
        actor=actor if isinstance(actor, AbstractBaseUser) else None, actor_label=actor_label(actor),
        action=action, subject_digest=user_id_digest(user_id) if user_id else "", target_type=target_type,
        target_id=str(target_id), before=before or {}, after=after or {}, reason=reason,
    )


def memory_view_record(*, actor: Actor, user_ids: set[str], page: str, target_id: str = "") -> None:
    """Record that a staff member saw the memory content of these subjects on a page."""
    label = actor_label(actor)
    AuditEvent.objects.bulk_create([
        AuditEvent(actor=actor if isinstance(actor, AbstractBaseUser) else None, actor_label=label,
                   action="memory.view", subject_digest=user_id_digest(user_id), target_type=page,
                   target_id=target_id)
        for user_id in sorted(user_ids)
    ])


@transaction.atomic
def fact_supersession_confirm(*, user_id: str, fact_uid: str, actor: Actor) -> str:
    """Confirm that a superseded fact was rightly replaced; return the fact that replaced it."""
    rows, _ = db.cypher_query(cypher.FACT_SUPERSESSION_CONFIRM,
                              {"user_id": user_id, "uid": fact_uid, "actor": actor_label(actor)})
    if not rows:
        raise NotFound("No superseded fact with that id.")
    audit_record(actor=actor, action="fact.confirm", user_id=user_id, target_type="fact", target_id=fact_uid,
                 before={"status": "superseded", "superseded_by": rows[0][0]},
                 after={"status": "superseded", "confirmed": True, "superseded_by": rows[0][0]})
    return rows[0][0]


@transaction.atomic
def trace_delete(*, user_id: str, trace_uid: str, actor: Actor, reason: str = "") -> int:
    """Delete a reasoning trace with its steps and tool calls; return the nodes deleted."""
    rows, _ = db.cypher_query(NODE_DELETE["ReasoningTrace"], {"user_id": user_id, "uid": trace_uid})
    if not rows:
        raise NotFound("No reasoning trace with that id.")
    audit_record(actor=actor, action="trace.delete", user_id=user_id, target_type="trace", target_id=trace_uid,
                 before={"nodes": rows[0][0]}, after={"nodes": 0}, reason=reason)
    return rows[0][0]
