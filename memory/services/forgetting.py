"""Forgetting, in one place for every path that deletes memory: one item (the agent API, the person's pages, staff
review), what is past retention (the periodic job), and everything of a category or a person (erasure).

An item goes with what was derived only from it (a message's facts, preferences and entities no other message
supports); the facts and preferences it stated something about are settled again without it, and the corrections
of what went go too, as they hold its values.
"""

from collections.abc import Iterable, Iterator
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from neomodel import db

from memory import cypher, ingest
from memory.kinds import ENTITIES, FACTS, KINDS, MESSAGES, PREFERENCES, TRACES, kind_get
from memory.models import Correction, HeldMemory
from memory.trust import INSTRUCTION
from portal import graphdb
from portal.audit import Actor, audit_record
from portal.exceptions import NotFound

# How many nodes one statement of retention or erasure deletes: each batch its own transaction, so other people's
# reads and writes interleave with a large deletion.
RETENTION_BATCH = 2000
ERASE_BATCH = 5000
# In retention's order: what is derived from messages first, then the messages (with what only they supported),
# then traces.
EXPIRED_ORDER = (FACTS, PREFERENCES, ENTITIES, MESSAGES, TRACES)
# Why a message is no longer given to agents once the person forgot something it said (memory.graph.Message.withheld).
FORGOTTEN = "you asked to forget something it said"
REVOKED = "you revoked the instruction it gave"


def item_delete(*, user_id: str, kind: str, uid: str, actor: Actor, reason: str = "") -> int:
    """Forget one item of a subject, with what was derived only from it; return the nodes deleted. The messages that
    stated a fact, preference or entity are no longer given to agents, and extracting them again leaves it out.

    Every path (the agent API, the person's own pages, staff review) comes here, so each writes its audit row.
    """
    item = kind_get(kind)
    # The rows go in the graph's transaction and commit after it: a database that refuses them (locked by another
    # writer) undoes the forgetting too, so the caller's "nothing was changed" holds.
    with transaction.atomic(), db.transaction:
        forgotten = graphdb.rows(item.forget_query, {"user_id": user_id, "uid": uid, "withheld": FORGOTTEN,
                                                     "revoked": REVOKED, "instruction": INSTRUCTION})[0]
        if not forgotten["nodes"]:
            raise NotFound(f"No {item.item_title.lower()} with that id.")
        groups_settle(user_id=user_id, groups=_groups(forgotten))
        deleted = _deleted(forgotten)
        _decisions_delete(user_id=user_id, uids=forgotten["uids"])
        audit_record(actor=actor, action=f"{item.item_type}.delete", user_id=user_id, target_type=item.item_type,
                     target_id=uid, before={"nodes": deleted}, after={"nodes": 0}, reason=reason)
    return deleted


def expired_forget(*, user_id: str, cutoffs: dict[str, datetime | None]) -> dict[str, int]:
    """Delete one pass of what is past the person's retention ($cutoffs: category -> oldest moment kept), a batch at a
    time, as item_delete forgets an item; return the nodes deleted per kind. Conversations left empty go too."""
    params = {"user_id": user_id, "cutoffs": cutoffs, "batch": RETENTION_BATCH}
    deleted = dict.fromkeys((kind.name for kind in KINDS), 0)
    for kind in EXPIRED_ORDER:
        for batch in _batches(kind.expired_forget_query, params):
            deleted[kind.name] += batch["nodes"] + batch["parts"]
            for derived in (FACTS, PREFERENCES, ENTITIES):
                deleted[derived.name] += batch[derived.name]
            groups_settle(user_id=user_id, groups=_groups(batch))
            _decisions_delete(user_id=user_id, uids=batch["uids"])
    if deleted[MESSAGES.name] or deleted[TRACES.name]:
        conversations_empty_erase(user_id=user_id)
    return deleted


def labels_erase(*, user_id: str, labels: list[str]) -> int:
    """Delete every node of these labels carrying the subject's id, with its relationships; return how many."""
    return sum(_erased(cypher.label_erase(label), user_id=user_id) for label in labels)


def conversations_empty_erase(*, user_id: str) -> int:
    """Delete the subject's conversations left with neither messages nor traces; return how many."""
    return _erased(cypher.EMPTY_CONVERSATIONS_DELETE, user_id=user_id)


def groups_settle(*, user_id: str, groups: Iterable[ingest.StatementGroup]) -> None:
    """Settle again which fact or preference is current in each statement group, once each."""
    for group in sorted(set(groups), key=lambda g: (g.label, g.key)):
        ingest.group_settle(user_id=user_id, group=group)


def _groups(forgotten: dict) -> list[ingest.StatementGroup]:
    return [ingest.StatementGroup(**group) for group in forgotten["groups"]]


def _deleted(forgotten: dict) -> int:
    return sum(forgotten[count] for count in ("nodes", "parts", "facts", "preferences", "entities"))


def _decisions_delete(*, user_id: str, uids: list[str]) -> None:
    """Delete the corrections of items that were forgotten (they hold the item's values, before and after) and what
    was held of forgotten messages (their words, and what they would add)."""
    if uids:
        Correction.objects.filter(Q(target_uid__in=uids) | Q(version_uid__in=uids), subject__user_id=user_id).delete()
        HeldMemory.objects.filter(message_uid__in=uids, subject__user_id=user_id).delete()


def _batches(query: str, params: dict) -> Iterator[dict]:
    """Run one batched forgetting statement until a batch comes back short; yield each batch's row."""

    while True:
        batch = graphdb.rows(query, params)[0]
        yield batch
        if batch["nodes"] < params["batch"]:
            return


def _erased(query: str, *, user_id: str) -> int:
    total = 0
    while True:
        deleted = graphdb.scalar(query, {"user_id": user_id, "batch": ERASE_BATCH})
        total += deleted
        if deleted < ERASE_BATCH:
            return total
