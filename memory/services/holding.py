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
# Why a message whose held memory the person rejected is no longer given to agents (memory.graph.Message.withheld).
WITHHELD_REJECTED = "you did not approve it"
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
    """Bring the graph to the decision: an approval lets agents recall the message and queues its extraction again;
    undoing one forgets what it wrote and holds the message again; a rejection withholds the message from agents in
    every section, and undoing it lets it wait again."""
    user_id, uid = held.subject.user_id, held.message_uid
    message = {"uid": uid, "user_id": user_id}
    if held.status == HeldStatus.APPROVED:
        # Approved, its words are recalled too.
        graphdb.run(cypher.MESSAGE_HELD_SET, {**message, "reasons": None})
        _status_set(user_id=user_id, uid=uid, status="pending", error=None)
        transaction.on_commit(lambda: work_enqueue(kind="extractions", entries=[(uid, (uid, user_id))]))
        return
    if was == HeldStatus.APPROVED:
        with db.transaction:
            forgotten = graphdb.rows(cypher.MESSAGE_MEMORY_FORGET, message)[0]
            groups_settle(user_id=user_id, groups=[ingest.StatementGroup(**g) for g in forgotten["groups"]])
            graphdb.run(cypher.MESSAGE_HELD_SET, {**message, "reasons": held.reasons})
    rejected = held.status == HeldStatus.REJECTED
    graphdb.run(cypher.MESSAGE_WITHHOLD if rejected else cypher.MESSAGE_RELEASE, {**message, "reason": WITHHELD_REJECTED})
    _status_set(user_id=user_id, uid=uid, status="skipped" if rejected else "held", error=REJECTED if rejected else None)


def _status_set(*, user_id: str, uid: str, status: str, error: str | None) -> None:
    graphdb.run(cypher.MESSAGE_EXTRACTION_STATUS, {"uid": uid, "user_id": user_id, "status": status, "error": error})

