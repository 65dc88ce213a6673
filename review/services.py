"""Writes of the review pages: merge decisions, supersession reviews, and the record of what staff saw."""

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from portal import graphdb
from portal.audit import Actor, actor_label, audit_record
from portal.exceptions import NotFound
from portal.models import AuditEvent, user_id_digest
from review import cypher

def memory_view_record(*, actor: Actor, user_ids: set[str], page: str, target_id: str = "") -> None:
    """Record that a staff member saw the memory content of these subjects on a page."""
    AuditEvent.objects.bulk_create([
        AuditEvent(actor=actor if isinstance(actor, AbstractBaseUser) else None, actor_label=actor_label(actor),
                   action="memory.view", subject_digest=user_id_digest(user_id), target_type=page,
                   target_id=target_id)
        for user_id in sorted(user_ids)
    ])


@transaction.atomic
def _merge_decide(query: str, *, action: str, done: str, user_id: str, from_uid: str, into_uid: str,
                  actor: Actor) -> None:
    params = {"user_id": user_id, "from_uid": from_uid, "into_uid": into_uid}
    before = graphdb.scalar(cypher.MERGE_STATE, params)
    if before is None or graphdb.scalar(query, {**params, "actor": actor_label(actor)}) is None:
        raise NotFound(f"No merge of that pair that can be {done}.")
    audit_record(actor=actor, action=action, user_id=user_id, target_type="same_as",
                 target_id=f"{from_uid}>{into_uid}", before=before, after=graphdb.scalar(cypher.MERGE_STATE, params))


def merge_approve(*, user_id: str, from_uid: str, into_uid: str, actor: Actor) -> None:
    """Confirm a pending merge: the merged entity's names become aliases of the other."""
    _merge_decide(cypher.MERGE_APPROVE, action="merge.approve", done="approved", user_id=user_id, from_uid=from_uid,
                  into_uid=into_uid, actor=actor)


def merge_reject(*, user_id: str, from_uid: str, into_uid: str, actor: Actor) -> None:
    """Reject a pending merge; the pair is never proposed again."""
    _merge_decide(cypher.MERGE_REJECT, action="merge.reject", done="rejected", user_id=user_id, from_uid=from_uid,
                  into_uid=into_uid, actor=actor)


def merge_undo(*, user_id: str, from_uid: str, into_uid: str, actor: Actor) -> None:
    """Undo an automatic or confirmed merge, restoring both entities as they were before it."""
    _merge_decide(cypher.MERGE_UNDO, action="merge.undo", done="undone", user_id=user_id, from_uid=from_uid,
                  into_uid=into_uid, actor=actor)


@transaction.atomic
def _supersession_decide(query: str, *, action: str, user_id: str, fact_uid: str, actor: Actor, states) -> str:
    """Decide on a superseded fact; `states(newer)` gives the audit row's before and after, given the uid of the fact
    that replaced it, which is returned."""
    newer = graphdb.scalar(query, {"user_id": user_id, "uid": fact_uid, "actor": actor_label(actor)})
    if newer is None:
        raise NotFound("No superseded fact with that id.")
    before, after = states(newer)
    audit_record(actor=actor, action=action, user_id=user_id, target_type="fact", target_id=fact_uid,
                 before=before, after=after)
    return newer


def fact_confirm(*, user_id: str, fact_uid: str, actor: Actor) -> str:
    """Confirm that a superseded fact was rightly replaced; return the fact that replaced it."""
    return _supersession_decide(cypher.FACT_CONFIRM, action="fact.confirm", user_id=user_id, fact_uid=fact_uid,
                                actor=actor, states=lambda newer: (
                                    {"status": "superseded", "superseded_by": newer},
                                    {"status": "superseded", "confirmed": True, "superseded_by": newer}))


def fact_revert(*, user_id: str, fact_uid: str, actor: Actor) -> str:
    """Make a superseded fact current again and retract the fact that replaced it; return the latter."""
    return _supersession_decide(cypher.FACT_REVERT, action="fact.revert", user_id=user_id, fact_uid=fact_uid,
                                actor=actor, states=lambda newer: (
                                    {fact_uid: "superseded", newer: "current"},
                                    {fact_uid: "current", newer: "retracted"}))
