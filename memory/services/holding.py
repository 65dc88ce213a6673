"""Deciding on memory held for the person (memory.ingest.holding): approve, reject, or undo either; each audited."""

from django.db import transaction
from django.utils import timezone
from neomodel import db

from memory import cypher, ingest
from memory.models import HeldMemory, HeldStatus
from memory.services.forgetting import groups_settle
from portal import graphdb
from portal.audit import Actor, actor_label, audit_record
from portal.exceptions import ApplicationError
from portal.outbox import work_enqueue

REJECTED = "You did not approve what it would add."
# Which decision each state takes, and to which state.
DECISIONS = {"approve": (HeldStatus.HELD, HeldStatus.APPROVED), "reject": (HeldStatus.HELD, HeldStatus.REJECTED),
             "undo": (None, HeldStatus.HELD)}


def held_decide(*, held: HeldMemory, decision: str, actor: Actor) -> HeldMemory:
    """Approve held memory (the worker writes it as if it had applied at once), reject it (nothing is written), or
    undo either (held again: what an approval wrote is forgotten, the message kept)."""
    if decision not in DECISIONS:
        raise ApplicationError(f"Unknown decision {decision!r}; choose approve, reject or undo.")
    before, after = DECISIONS[decision]
    with transaction.atomic():
        held = HeldMemory.objects.select_for_update().select_related("subject").get(pk=held.pk)
        allowed = held.status == before if before else held.status != HeldStatus.HELD
        if not allowed:
            raise ApplicationError("This was already decided; the page shows where it stands now.")
        was = held.status
        held.status, held.decided_at = after, None if after == HeldStatus.HELD else timezone.now()
        held.decided_by = "" if after == HeldStatus.HELD else actor_label(actor)
        held.save(update_fields=["status", "decided_at", "decided_by"])
        audit_record(actor=actor, action=f"held.{decision}", user_id=held.subject.user_id, target_type="held",
                     target_id=str(held.public_id), before={"status": was}, after={"status": after})
        _graph_follow(held=held, was=was)
    return held


def _graph_follow(*, held: HeldMemory, was: str) -> None:
    """Bring the graph to the decision: an approval queues the message's extraction again; undoing one forgets what
    it wrote; a rejection (or undoing it) only says so on the message."""
    user_id, uid = held.subject.user_id, held.message_uid
    if held.status == HeldStatus.APPROVED:
        _status_set(user_id=user_id, uid=uid, status="pending", error=None)
        transaction.on_commit(lambda: work_enqueue(kind="extractions", entries=[(uid, (uid, user_id))]))
        return
    if was == HeldStatus.APPROVED:
        with db.transaction:
            forgotten = graphdb.rows(cypher.MESSAGE_MEMORY_FORGET, {"user_id": user_id, "uid": uid})[0]
            groups_settle(user_id=user_id, groups=[ingest.StatementGroup(**g) for g in forgotten["groups"]])
    rejected = held.status == HeldStatus.REJECTED
    _status_set(user_id=user_id, uid=uid, status="skipped" if rejected else "held", error=REJECTED if rejected else None)


def _status_set(*, user_id: str, uid: str, status: str, error: str | None) -> None:
    graphdb.run(cypher.MESSAGE_EXTRACTION_STATUS, {"uid": uid, "user_id": user_id, "status": status, "error": error})

