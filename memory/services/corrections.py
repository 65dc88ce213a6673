"""Corrections of facts, preferences and entities by the person, a reviewer or an agent: applied, proposed,
accepted, rejected, undone."""

import json
from datetime import date

from django.db import transaction
from django.utils import timezone
from neomodel import db
from neomodel.exceptions import UniqueProperty

from memory import cypher, ingest
from memory.embeddings import get_embedder
from memory.extraction.rules import preference_topic_key
from memory.graph import ENTITY_TYPES
from memory.kinds import ENTITIES, FACTS, PREFERENCES, kind_get
from memory.models import Agent, Correction, CorrectionStatus, Grant, Subject
from memory.selectors import consent_require, item_get
from memory.services.forgetting import groups_settle
from memory.trust import ACCEPTED_BY, CORRECTED_BY_AGENT
from memory.wording import fact_line
from portal import graphdb
from portal.audit import Actor, actor_label, audit_record
from portal.exceptions import ApplicationError


CORRECTABLE = (FACTS.name, PREFERENCES.name, ENTITIES.name)
# The fields a correction of each kind may set.
CORRECTION_FIELDS = {FACTS.name: ("object", "valid_from", "valid_until"),
                     PREFERENCES.name: ("preference", "category"),
                     ENTITIES.name: ("name", "type", "aliases")}


class CorrectionConflict(ApplicationError):
    status_code = 409


def correction_value_check(*, kind: str, value: dict) -> dict:
    """Return the fields a correction of this kind sets, or refuse it naming the field."""
    if kind not in CORRECTABLE:
        raise ApplicationError(f"Only {', '.join(CORRECTABLE)} can be corrected.", {"fields": {"kind": [kind]}})
    fields = {name: value[name] for name in CORRECTION_FIELDS[kind] if value.get(name) not in (None, "")}
    if kind == ENTITIES.name and "aliases" in value and value["aliases"] is not None:
        fields["aliases"] = sorted({alias.strip() for alias in value["aliases"] if alias.strip()})
    if not fields:
        names = ", ".join(CORRECTION_FIELDS[kind])
        raise ApplicationError(f"Give at least one of {names}.", {"fields": {"value": [f"One of {names}."]}})
    if fields.get("type") and fields["type"] not in ENTITY_TYPES:
        raise ApplicationError("Unknown entity type.", {"fields": {"type": [f"One of {', '.join(ENTITY_TYPES)}."]}})
    until, since = fields.get("valid_until"), fields.get("valid_from")
    if until and until > timezone.localdate():
        raise ApplicationError("valid_until is in the future; a fact can be corrected to have ended, not to end.",
                               {"fields": {"valid_until": ["Not after today."]}})
    if until and since and until <= since:
        raise ApplicationError("valid_until is not after valid_from.", {"fields": {"valid_until": ["After valid_from."]}})
    return fields


def _correction_by(*, subject: Subject, actor: Actor, agent: Agent | None) -> str:
    if agent is not None:
        return f"{CORRECTED_BY_AGENT}{agent.agent_id}"
    if getattr(actor, "pk", None) == subject.account_id:
        return "the person"
    return f"reviewer {actor_label(actor)}"


def _correction_audit(*, correction: Correction, actor: Actor, action: str, reason: str = "") -> None:
    audit_record(actor=actor, action=f"correction.{action}", user_id=correction.subject.user_id,
                 target_type=kind_get(correction.kind).item_type, target_id=correction.target_uid,
                 after={"correction": str(correction.public_id), "status": correction.status,
                        "fields": sorted(correction.value), "version": correction.version_uid,
                        "by": correction.corrected_by, "agent": correction.agent.agent_id if correction.agent else None},
                 reason=reason)


@transaction.atomic
def correction_create(*, subject: Subject, kind: str, uid: str, value: dict, actor: Actor,
                      agent: Agent | None = None, reason: str = "") -> Correction:
    """Correct one item, or, for an agent the person has not let correct directly, propose the correction.

    The person and a reviewer correct at once; so does an agent whose grant allows it (`may_correct`).
    """
    if agent is not None:
        consent_require(subject=subject, agent=agent, category=kind_get(kind).category)
    item = item_get(user_id=subject.user_id, kind=kind, uid=uid)
    fields = correction_value_check(kind=kind, value=value)
    correction = Correction.objects.create(
        subject=subject, kind=kind, target_uid=uid, value=_json_ready(fields), reason=reason[:500], agent=agent,
        previous=_json_ready({name: item.get(name) for name in fields}),
        corrected_by=_correction_by(subject=subject, actor=actor, agent=agent))
    direct = agent is None or Grant.objects.filter(subject=subject, agent=agent, may_correct=True).exists()
    if not direct:
        _correction_audit(correction=correction, actor=actor, action="propose", reason=reason)
        return correction
    _correction_apply(correction=correction, actor=actor)
    _correction_audit(correction=correction, actor=actor, action="apply", reason=reason)
    return correction


@transaction.atomic
def correction_accept(*, correction: Correction, actor: Actor) -> Correction:
    """Apply a proposed correction, as decided by the person or a reviewer."""
    _correction_pending(correction=correction)
    decider = _correction_by(subject=correction.subject, actor=actor, agent=None)
    correction.corrected_by = f"{correction.corrected_by}{ACCEPTED_BY}{decider}"
    _correction_apply(correction=correction, actor=actor)
    _correction_audit(correction=correction, actor=actor, action="accept")
    return correction


@transaction.atomic
def correction_reject(*, correction: Correction, actor: Actor) -> Correction:
    """Refuse a proposed correction; the item stays as it is."""
    _correction_pending(correction=correction)
    correction.status, correction.decided_at, correction.decided_by = \
        CorrectionStatus.REJECTED, timezone.now(), actor_label(actor)
    correction.save(update_fields=["status", "decided_at", "decided_by"])
    _correction_audit(correction=correction, actor=actor, action="reject")
    return correction


def _correction_pending(*, correction: Correction) -> None:
    if Correction.objects.filter(pk=correction.pk).values_list("status", flat=True).first() != CorrectionStatus.PROPOSED:
        raise CorrectionConflict("This correction was already decided.", {"status": correction.status})


def _json_ready(values: dict) -> dict:
    return json.loads(json.dumps(values, default=lambda v: getattr(v, "to_native", lambda: v)().isoformat()))


def _correction_apply(*, correction: Correction, actor: Actor) -> None:
    """Write the correction to the graph and mark it applied (the caller's transaction holds both)."""
    user_id, value = correction.subject.user_id, correction.value
    item = item_get(user_id=user_id, kind=correction.kind, uid=correction.target_uid)
    correction.previous = _json_ready({name: item.get(name) for name in value})  # as it is now, for an undo
    if correction.kind == ENTITIES.name:
        name = value.get("name", item["name"])
        embedding = get_embedder().embed([name])[0].tolist()
        params = {"user_id": user_id, "uid": correction.target_uid, "name": name,
                  "type": value.get("type", item["type"]), "aliases": value.get("aliases", item["aliases"] or []),
                  "embedding": embedding, "correction_id": str(correction.public_id),
                  "corrected_by": correction.corrected_by}
        try:
            with db.transaction:
                graphdb.run(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
                graphdb.scalar(cypher.ENTITY_CORRECT, params)
        except UniqueProperty:  # neomodel's name for the (user_id, type, key) constraint refusing it
            raise CorrectionConflict("You already have another entity of that type and name; forget one of them "
                                     "or correct the other.", {"fields": {"type": ["Taken by another entity."]}})
        correction.version_uid = correction.target_uid
    else:
        if item["status"] not in ("current", "superseded"):
            raise CorrectionConflict("This item was corrected or retracted already; correct its current version.",
                                     {"status": item["status"]})
        label = kind_get(correction.kind).label
        correction.version_uid = ingest.derived_uid(user_id, correction.kind, "correction", str(correction.public_id))
        props, stated_from = _version_props(kind=correction.kind, item=item, value=value)
        with db.transaction:
            # Under the person's write lock, so no extraction adds a statement the version would miss.
            graphdb.run(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
            statements = [
                {**s, "key": ingest.statement_key_restated(key=s["key"], valid_from=stated_from),
                 "valid_from": stated_from or s["valid_from"]}
                for s in graphdb.rows(cypher.STATEMENTS_OF[label], {"user_id": user_id, "uid": correction.target_uid})
            ]
            groups = ingest.node_statement_groups(user_id=user_id, uids=[correction.target_uid])
            created = graphdb.scalar(cypher.VERSION_CREATE[label], {
                "user_id": user_id, "uid": correction.target_uid, "version_uid": correction.version_uid,
                "props": props, "statements": statements, "correction_id": str(correction.public_id),
                "corrected_by": correction.corrected_by})
            if created is None:
                raise CorrectionConflict("This item was corrected or retracted already; correct its current version.")
            groups += ingest.node_statement_groups(user_id=user_id, uids=[correction.version_uid])
            groups_settle(user_id=user_id, groups=groups)
    correction.status, correction.decided_at = CorrectionStatus.APPLIED, timezone.now()
    correction.decided_by = actor_label(actor)
    correction.save(update_fields=["status", "decided_at", "decided_by", "version_uid", "corrected_by", "previous"])


def _version_props(*, kind: str, item: dict, value: dict) -> tuple[dict, date | None]:
    """Return the properties of a corrected version, and the valid_from the correction states."""
    if kind == FACTS.name:
        stated_from = date.fromisoformat(value["valid_from"]) if value.get("valid_from") else None
        stated_until = date.fromisoformat(value["valid_until"]) if value.get("valid_until") else None
        obj = value.get("object", item["object"])
        text = fact_line(subject=item["subject"], predicate=item["predicate"], object=obj)
        return {"subject": item["subject"], "predicate": item["predicate"], "object": obj, "confidence": 1.0,
                "embedding": get_embedder().embed([text])[0].tolist(), "stated_from": stated_from,
                "stated_until": stated_until}, stated_from
    text = value.get("preference", item["preference"])
    topic, polarity = ingest.preference_key(text)
    return {"category": value.get("category", item["category"]), "preference": text, "topic": topic,
            "topic_key": preference_topic_key(topic),
            "polarity": polarity, "confidence": 1.0, "context": item.get("context"),
            "embedding": get_embedder().embed([text])[0].tolist()}, None


@transaction.atomic
def correction_undo(*, correction: Correction, actor: Actor) -> Correction:
    """Take an applied correction back: the version it corrected returns (a later correction goes first)."""

    correction = Correction.objects.select_for_update().select_related("subject").get(pk=correction.pk)
    if correction.status != CorrectionStatus.APPLIED:
        raise CorrectionConflict("Only an applied correction can be undone.", {"status": correction.status})
    user_id, later = correction.subject.user_id, "It was corrected again since; undo the later correction first."
    if correction.kind == ENTITIES.name:
        newest = Correction.objects.filter(subject=correction.subject, kind=correction.kind,
                                           target_uid=correction.target_uid, status=CorrectionStatus.APPLIED
                                           ).order_by("-decided_at", "-pk").first()
        if newest != correction:
            raise CorrectionConflict(later)
        before = Correction.objects.filter(subject=correction.subject, kind=correction.kind,
                                           target_uid=correction.target_uid, status=CorrectionStatus.APPLIED
                                           ).exclude(pk=correction.pk).order_by("-decided_at", "-pk").first()
        item = item_get(user_id=user_id, kind=correction.kind, uid=correction.target_uid)
        restored = {**{name: item[name] for name in ("name", "type", "aliases")}, **correction.previous}
        with db.transaction:
            graphdb.run(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
            graphdb.scalar(cypher.ENTITY_CORRECT, {
                "user_id": user_id, "uid": correction.target_uid, **restored,
                "embedding": get_embedder().embed([restored["name"]])[0].tolist(),
                "correction_id": str(before.public_id) if before else None,
                "corrected_by": before.corrected_by if before else None})
    else:
        label = kind_get(correction.kind).label
        with db.transaction:
            graphdb.run(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
            groups = ingest.node_statement_groups(user_id=user_id, uids=[correction.version_uid])
            undone = graphdb.scalar(cypher.VERSION_UNDO[label], {
                "user_id": user_id, "uid": correction.target_uid, "version_uid": correction.version_uid,
                "correction_id": str(correction.public_id)})
            if undone is None:
                raise CorrectionConflict(later)
            groups += ingest.node_statement_groups(user_id=user_id, uids=[correction.target_uid])
            groups_settle(user_id=user_id, groups=groups)
    correction.status, correction.undone_at = CorrectionStatus.UNDONE, timezone.now()
    correction.save(update_fields=["status", "undone_at"])
    _correction_audit(correction=correction, actor=actor, action="undo")
    return correction
