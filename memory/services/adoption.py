"""Adopt the memory graph neo4j-agent-memory (NAM) 0.8.0 wrote, so that the portal governs it.

NAM writes no `user_id` or `uid`: a person is `(:User {identifier})`, which owns conversations,
preferences and traces; messages belong to their conversation; entities are shared between people
and belong to whoever's messages mention them; facts have no owner at all. Adoption derives each
node's owner from those links, gives it `uid` and `user_id` (NAM's `id` stays, and `nam_id` keeps it
on every node), numbers messages along their NEXT_MESSAGE chain, gives every person their own copy
of a node several people share, maps NAM's labels and relationship types to the portal's, keeps
embeddings of the configured embedder's dimensions and recomputes the others, and creates a subject
for each NAM user. What it cannot own it reports and leaves alone. A re-run finds only what is still
unowned, so it changes nothing that it adopted before.

A subject made for a NAM user belongs to a placeholder account (`nam:<identifier>`, no password;
its email is the identifier when that is an address, so the person can claim it by resetting the
password). `subject_claim` moves it to a signed-in person's own account instead.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from neomodel import db

from memory.cypher import adoption as cypher
from memory.cypher import schema as memory_schema
from memory.embeddings import embedding_dimensions, get_embedder
from memory.graph import ENTITY_TYPES
from memory.ingest import derived_uid, entity_key, entity_uid, message_copies_fill
from memory.models import Subject
from memory.nam import folded, person_names
from memory.services.messages import content_hash
from portal import graphdb
from portal.audit import audit_record
from portal.exceptions import ApplicationError
from portal.graphdb import rows, scalar
from portal.redis_clients import app_redis

USER_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PLACEHOLDER_PREFIX = "nam:"
ADOPTED_STATUS = "skipped"
ADOPTED_NOTE = "Adopted from neo4j-agent-memory; the portal did not extract it."
ADOPT_LOCK = "lock:nam_adopt"
ADOPT_LOCK_SECONDS = 600


@dataclass
class Plan:
    """What one run does: subjects to create, node properties to set, copies to make, links to move."""

    subjects: dict[str, str] = field(default_factory=dict)
    new_subjects: list[str] = field(default_factory=list)
    users_merge: list[dict] = field(default_factory=list)
    adopt: list[dict] = field(default_factory=list)
    copies: dict[str, list[dict]] = field(default_factory=lambda: {"Entity": [], "Preference": []})
    entity_nodes: list[str] = field(default_factory=list)
    links_adopt: list[dict] = field(default_factory=list)
    links_copy: dict[str, list[dict]] = field(default_factory=lambda: {type_: [] for type_ in cypher.LINK_TYPES})
    links_delete: list[str] = field(default_factory=list)
    traces: list[dict] = field(default_factory=list)
    tool_calls: list[str] = field(default_factory=list)
    embed: list[dict] = field(default_factory=list)
    unowned: list[dict] = field(default_factory=list)
    ids_missing: int = 0
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    # How a text can name a NAM user (folded): as its whole value (identifier, NAM id, name), or anywhere
    # in it (identifier, NAM id); each maps to the owners it names.
    names: dict[str, set[str]] = field(default_factory=dict)
    ids: dict[str, set[str]] = field(default_factory=dict)

    def own(self, *, node: str | None, label: str, user_id: str, properties: dict, text: str | None = None,
            vector: str = "embedding", dimensions: int | None = None) -> None:
        """Plan a node (or, with node None, a copy already in `copies`) for one person."""
        properties["user_id"] = user_id
        if node is not None:
            self.adopt.append({"node": node, "properties": properties})
        self.counts.setdefault(label, {}).setdefault(user_id, 0)
        self.counts[label][user_id] += 1
        if text is not None and dimensions is not None and dimensions != embedding_dimensions():
            self.embed.append({"target": properties, "vector": vector, "text": text})

    def refuse(self, *, label: str, nam_id: str | None, node: str, reason: str) -> None:
        self.unowned.append({"label": label, "nam_id": nam_id, "node": node, "reason": reason})

    def refer(self, *, user_id: str, user: dict) -> None:
        """Record how texts may name this NAM user: their identifier, NAM id and name (from their attributes)."""
        ids = {user["identifier"], user["nam_id"]} - {None}
        for text in ids:
            self.ids.setdefault(folded(text), set()).add(user_id)
        for text in ids | person_names(user["attributes"]):
            self.names.setdefault(folded(text), set()).add(user_id)

    def named(self, *, whole=(), anywhere=()) -> set[str]:
        """Return the owners of the NAM users these texts name: by identifier, NAM id or name as a whole
        text, or by identifier or NAM id anywhere in one."""
        owners = set()
        for text in whole:
            owners |= self.names.get(folded(text), set()) if isinstance(text, str) else set()
        for text in anywhere:
            padded = f" {folded(text)} " if isinstance(text, str) else ""
            owners |= {user_id for ref, users in self.ids.items() if f" {ref} " in padded for user_id in users}
        return owners


def _subject_user_id(identifier: str) -> str:
    """Return the public id a NAM identifier's subject gets: the identifier itself when it is a valid one."""
    existing = Subject.objects.filter(user_id=identifier).values_list("user_id", flat=True).first()
    if existing or USER_ID.match(identifier):
        return identifier
    return hashlib.sha256(f"nam\x00{identifier}".encode()).hexdigest()[:32]


def _uid(user_id: str, label: str, nam_id: str | None, node: str) -> str:
    return derived_uid(user_id, "nam", label, nam_id or node)


def _owner(identifiers: set[str], plan: Plan) -> tuple[str | None, str]:
    """Return the one owner a set of NAM identifiers names, or None and why not."""
    owners = {plan.subjects[i] for i in identifiers if i in plan.subjects}
    if len(owners) == 1:
        return owners.pop(), ""
    return None, ("no NAM user links it" if not owners else f"{len(owners)} NAM users link it")


def _users_plan(plan: Plan) -> None:
    users = rows(cypher.NAM_USERS)
    for user in users:
        plan.subjects[user["identifier"]] = user["user_id"] or _subject_user_id(user["identifier"])
        plan.refer(user_id=plan.subjects[user["identifier"]], user=user)
    portal = {row["user_id"]: row["node"] for row in
              rows(cypher.PORTAL_USERS, {"user_ids": sorted(set(plan.subjects.values()))})}
    for user in users:
        user_id = plan.subjects[user["identifier"]]
        if user["user_id"] is None:
            if not Subject.objects.filter(user_id=user_id).exists():
                plan.new_subjects.append(user["identifier"])
            if user_id in portal:
                plan.users_merge.append({"node": user["node"], "into": portal[user_id]})
                plan.counts.setdefault("User", {})[user_id] = 1
                continue
            plan.own(node=user["node"], label="User", user_id=user_id,
                     properties={"uid": _uid(user_id, "User", user["nam_id"], user["node"]),
                                 "nam_id": user["nam_id"]})


def _conversations_plan(plan: Plan) -> dict[str, str]:
    """Plan the unowned conversations; return every conversation's owner by node, these and adopted ones."""
    owners = {}
    for conversation in rows(cypher.NAM_CONVERSATIONS):
        identifiers = set(conversation["identifiers"]) | ({conversation["user_identifier"]} - {None})
        user_id, why = _owner(identifiers, plan)
        if user_id is None:
            plan.refuse(label="Conversation", nam_id=conversation["nam_id"], node=conversation["node"], reason=why)
            continue
        owners[conversation["node"]] = user_id
        plan.own(node=conversation["node"], label="Conversation", user_id=user_id,
                 properties={"uid": _uid(user_id, "Conversation", conversation["nam_id"], conversation["node"]),
                             "nam_id": conversation["nam_id"]})
    return owners


def _messages_plan(plan: Plan, conversations: dict[str, str]) -> dict[str, str]:
    """Plan messages with their conversation's owner and their place in its chain; return owners by node."""
    chains = {row["conversation"]: row for row in rows(cypher.MESSAGE_CHAINS)}
    messages = rows(cypher.NAM_MESSAGES)
    by_conversation: dict[str, list[dict]] = {}
    owners = {}
    for message in messages:
        homes = message["conversations"]
        if len(homes) != 1:
            plan.refuse(label="Message", nam_id=message["nam_id"], node=message["node"],
                        reason="in no conversation" if not homes else "in several conversations")
            continue
        owner = homes[0]["user_id"] or conversations.get(homes[0]["node"])
        if owner is None:
            plan.refuse(label="Message", nam_id=message["nam_id"], node=message["node"],
                        reason="its conversation has no owner")
            continue
        owners[message["node"]] = owner
        by_conversation.setdefault(homes[0]["node"], []).append(message)
    for conversation, found in by_conversation.items():
        chain = chains.get(conversation, {}).get("chain") or []
        position = {node: seq for seq, node in enumerate(chain, start=1)}
        # Off the chain (NAM repairs forks later): after it, in the order NAM stamped them.
        ordered = sorted(found, key=lambda m: (position.get(m["node"], len(chain) + 1), m["timestamp"]))
        if chains.get(conversation, {}).get("user_id") is not None:
            # Owned already, numbered by the portal (which may have appended since NAM did): NAM's new
            # messages follow its last seq, in the order of the chain.
            last = chains[conversation]["last_seq"] or 0
            seqs = {m["node"]: last + number for number, m in enumerate(ordered, start=1)}
            last, chain = last + len(ordered), []
        else:
            seqs = {m["node"]: position.get(m["node"]) for m in ordered}
            last = max(position.values(), default=0)
        for message in ordered:
            if seqs[message["node"]] is None:
                last += 1
                seqs[message["node"]] = last
        for message in ordered:
            user_id = owners[message["node"]]
            plan.own(node=message["node"], label="Message", user_id=user_id, text=message["content"],
                     dimensions=message["dimensions"],
                     properties={"uid": _uid(user_id, "Message", message["nam_id"], message["node"]),
                                 "nam_id": message["nam_id"], "seq": seqs[message["node"]],
                                 "created_at": message["timestamp"], "stored_at": message["timestamp"],
                                 "content_hash": content_hash(role=message["role"], content=message["content"]),
                                 "extraction_status": ADOPTED_STATUS, "extraction_error": ADOPTED_NOTE})
        plan.adopt.append({"node": conversation, "properties": {"last_seq": max(last, len(chain))}})
    return owners


def _shared_plan(plan: Plan, *, label: str, node: str, owners: list[str], properties_for):
    """Yield (owner, node, properties): the node itself for its first owner, a planned copy (None) for each other."""
    for number, user_id in enumerate(owners):
        properties = properties_for(user_id)
        if number:
            properties["user_id"] = user_id
            plan.copies[label].append({"node": node, "properties": properties})
        yield user_id, node if number == 0 else None, properties


def _entities_plan(plan: Plan, messages: dict[str, str]) -> dict[str, dict[str, str | None]]:
    """Plan entities for the people whose messages mention them; return node -> owner -> planned node."""
    placed: dict[str, dict[str, str | None]] = {}
    entities = rows(cypher.NAM_ENTITIES)
    for entity in entities:
        owners = {m["user_id"] or messages.get(m["node"]) for m in entity["messages"]} - {None}
        # One no message mentions is the person's when it names them: NAM's add_entity takes no user.
        entity["owners"] = sorted(owners or plan.named(
            whole=[entity["name"], entity["canonical_name"]],
            anywhere=[entity["name"], entity["description"], *(entity["aliases"] or [])]))
        entity["uids"] = [entity_uid(user_id=user_id, type=entity["type"], name=entity["name"])
                          for user_id in entity["owners"] if entity["type"] in ENTITY_TYPES]
    taken = set(rows(cypher.ENTITY_UIDS_TAKEN, {"uids": [uid for e in entities for uid in e["uids"]]})[0]["uids"])
    for entity in entities:
        owners = entity["owners"]
        clash = taken.intersection(entity["uids"])
        taken.update(entity["uids"])
        if clash:
            plan.refuse(label="Entity", nam_id=entity["nam_id"], node=entity["node"],
                        reason="a person already has an entity of that type and name: merge them in review")
            continue
        if not owners:
            plan.refuse(label="Entity", nam_id=entity["nam_id"], node=entity["node"],
                        reason="no owned message mentions it and it names no NAM user")
            continue
        if entity["type"] not in ENTITY_TYPES:
            plan.refuse(label="Entity", nam_id=entity["nam_id"], node=entity["node"],
                        reason=f"its type {entity['type']!r} is not one of {', '.join(ENTITY_TYPES)}")
            continue

        def properties_for(user_id, entity=entity):
            return {"uid": entity_uid(user_id=user_id, type=entity["type"], name=entity["name"]),
                    "key": entity_key(entity["name"]), "nam_id": entity["nam_id"],
                    "aliases": entity["aliases"] or []}

        placed[entity["node"]] = {}
        for user_id, node, properties in _shared_plan(plan, label="Entity", node=entity["node"], owners=owners,
                                                      properties_for=properties_for):
            placed[entity["node"]][user_id] = node
            plan.own(node=node, label="Entity", user_id=user_id, properties=properties, text=entity["name"],
                     dimensions=entity["dimensions"])
        plan.entity_nodes.append(entity["node"])
    return placed


def _links_plan(plan: Plan, placed: dict[str, dict[str, str | None]]) -> None:
    """Plan an entity's SAME_AS and RELATED_TO, and a preference's APPLIES_TO and ABOUT its entity, for each
    person both ends belong to (between that person's copies); report those between people."""
    for link in rows(cypher.NAM_ENTITY_LINKS):
        start, end = placed.get(link["start"]), placed.get(link["end"])
        if start is None or end is None or not set(start) & set(end):
            plan.refuse(label=link["type"], nam_id=None, node=link["rel"],
                        reason=f"its {'entities' if link['from_label'] == 'Entity' else 'preference and entity'} "
                               "belong to no common person")
            continue
        properties = {}
        if link["type"] == "SAME_AS":
            properties = {"scores": json.dumps({"nam": link["confidence"]}),
                          "evidence": json.dumps({"writer": "neo4j-agent-memory", "match_type": link["match_type"]})}
        plan.links_adopt.append({"rel": link["rel"], "properties": properties})
        common = sorted(set(start) & set(end))
        kept = start[common[0]] == link["start"] and end[common[0]] == link["end"]
        for user_id in common[1 if kept else 0:]:
            plan.links_copy[link["type"]].append({"rel": link["rel"], "user_id": user_id, "start": link["start"],
                                                  "end": link["end"], "properties": properties})
        if not kept:
            plan.links_delete.append(link["rel"])


def _preferences_plan(plan: Plan) -> dict[str, dict[str, str | None]]:
    """Plan preferences for the NAM users who have them; return node -> owner -> planned node."""
    placed: dict[str, dict[str, str | None]] = {}
    for preference in rows(cypher.NAM_PREFERENCES):
        owners = sorted({plan.subjects[i] for i in preference["identifiers"] if i in plan.subjects})
        if not owners:
            plan.refuse(label="Preference", nam_id=preference["nam_id"], node=preference["node"],
                        reason="no NAM user has it")
            continue

        def properties_for(user_id, preference=preference):
            return {"uid": _uid(user_id, "Preference", preference["nam_id"], preference["node"]),
                    "nam_id": preference["nam_id"], "status": "current", "recorded_at": preference["created_at"]}

        placed[preference["node"]] = {}
        for user_id, node, properties in _shared_plan(plan, label="Preference", node=preference["node"],
                                                      owners=owners, properties_for=properties_for):
            placed[preference["node"]][user_id] = node
            plan.own(node=node, label="Preference", user_id=user_id, properties=properties,
                     text=preference["preference"], dimensions=preference["dimensions"])
    return placed


def _facts_plan(plan: Plan, messages: dict[str, str]) -> None:
    """Own a fact by the messages it was extracted from, else by a subject that names a NAM user (identifier,
    NAM id or name)."""
    for fact in rows(cypher.NAM_FACTS):
        owners = {m["user_id"] or messages.get(m["node"]) for m in fact["messages"]} - {None}
        about_user = not fact["messages"]
        if about_user:
            owners = plan.named(whole=[fact["subject"]])
        if len(owners) != 1:
            plan.refuse(label="Fact", nam_id=fact["nam_id"], node=fact["node"],
                        reason="it has no source message and its subject names no NAM user" if not owners
                        else "its subject names several NAM users" if about_user
                        else "its source messages belong to several people")
            continue
        user_id = owners.pop()
        subject = "user" if about_user else fact["subject"]
        plan.own(node=fact["node"], label="Fact", user_id=user_id,
                 text=f"{subject} {fact['predicate']} {fact['object']}",
                 dimensions=fact["dimensions"],
                 properties={"uid": _uid(user_id, "Fact", fact["nam_id"], fact["node"]), "nam_id": fact["nam_id"],
                             "subject": subject, "nam_subject": fact["subject"], "status": "current",
                             "recorded_at": fact["created_at"], "valid_from": _stated(fact["valid_from"]),
                             "valid_until": _stated(fact["valid_until"])})


def _stated(value):
    """Return a time NAM stored as ISO text (add_fact's valid_from, valid_until) as a datetime."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def _traces_plan(plan: Plan) -> None:
    for trace in rows(cypher.NAM_TRACES):
        identifiers = set(trace["identifiers"]) | ({trace["user_identifier"]} - {None})
        user_id, why = _owner(identifiers, plan)
        if user_id is None or not trace["session_id"]:
            plan.refuse(label="ReasoningTrace", nam_id=trace["nam_id"], node=trace["node"],
                        reason=why or "it has no session")
            continue
        plan.own(node=trace["node"], label="ReasoningTrace", user_id=user_id, text=trace["task"],
                 vector="task_embedding", dimensions=trace["dimensions"],
                 properties={"uid": _uid(user_id, "ReasoningTrace", trace["nam_id"], trace["node"]),
                             "nam_id": trace["nam_id"]})
        plan.traces.append({"node": trace["node"], "user_id": user_id, "session_id": trace["session_id"],
                            "conversation_uid": derived_uid(user_id, "nam", "Conversation", trace["session_id"])})
        for step in trace["steps"]:
            # The portal keeps no step embeddings.
            plan.own(node=step["node"], label="ReasoningStep", user_id=user_id,
                     properties={"uid": _uid(user_id, "ReasoningStep", step["nam_id"], step["node"]),
                                 "nam_id": step["nam_id"], "created_at": step["timestamp"], "embedding": None})
            for call in step["calls"]:
                plan.own(node=call["node"], label="ToolCall", user_id=user_id,
                         properties={"uid": _uid(user_id, "ToolCall", call["nam_id"], call["node"]),
                                     "nam_id": call["nam_id"], "created_at": call["timestamp"]})
                plan.tool_calls.append(call["node"])


def _unowned_rest(plan: Plan) -> None:
    """Report every other unowned memory node: nothing links it to a NAM user."""
    planned = {row["node"] for row in plan.adopt + plan.unowned + plan.users_merge}
    for node in rows(cypher.UNOWNED_NODES, {"labels": list(cypher.MEMORY_LABELS)}):
        if node["node"] not in planned:
            plan.refuse(label=node["label"], nam_id=node["nam_id"], node=node["node"],
                        reason="nothing links it to a NAM user")


def nam_plan() -> Plan:
    """Work out what adopting the graph does, without writing anything."""
    plan = Plan()
    _users_plan(plan)
    conversations = _conversations_plan(plan)
    messages = _messages_plan(plan, conversations)
    placed = _entities_plan(plan, messages)
    placed |= _preferences_plan(plan)
    _links_plan(plan, placed)
    _facts_plan(plan, messages)
    _traces_plan(plan)
    _unowned_rest(plan)
    plan.ids_missing = scalar(cypher.IDS_MISSING, {"labels": list(cypher.MEMORY_LABELS)})
    return plan


def _subjects_create(plan: Plan) -> None:
    accounts = get_user_model().objects
    for identifier in plan.new_subjects:
        # An address someone already signed up with is left to a staff claim: emails stay unique.
        email = identifier if "@" in identifier and not accounts.filter(email__iexact=identifier).exists() else ""
        account = accounts.create_user(username=f"{PLACEHOLDER_PREFIX}{identifier}"[:150], email=email)
        Subject.objects.create(account=account, user_id=plan.subjects[identifier])
        audit_record(actor="adopt_nam", action="subject.adopt", user_id=plan.subjects[identifier],
                     target_type="subject", after={"writer": "neo4j-agent-memory"})


def _embeddings_compute(plan: Plan) -> None:
    if not plan.embed:
        return
    vectors = get_embedder().embed([row["text"] for row in plan.embed])
    for row, vector in zip(plan.embed, vectors):
        row["target"][row["vector"]] = vector.tolist()


def nam_adopt(*, dry_run: bool = False) -> dict:
    """Adopt what NAM wrote (or, with dry_run, only report what that would do); return the report.

    One run at a time: the Beat task of the switch-over mode, an erasure and the command may meet.
    """
    if dry_run:
        return nam_report(plan=nam_plan(), dry_run=True)
    with app_redis().lock(ADOPT_LOCK, timeout=ADOPT_LOCK_SECONDS, blocking_timeout=ADOPT_LOCK_SECONDS):
        plan = nam_plan()
        _embeddings_compute(plan)
        with transaction.atomic():
            _subjects_create(plan)
            with db.transaction:
                _graph_write(plan)
        message_copies_fill()  # the adopted messages keep their vectors; recall scans their copies
    return nam_report(plan=plan, dry_run=False)


def nam_adopt_since(*, user_id: str) -> dict | None:
    """Adopt what NAM wrote since the last run when this person's memory came from NAM (an agent may still
    write for them through NAM); return the report, or None when it did not."""
    if not scalar(cypher.NAM_USER_ADOPTED, {"user_id": user_id}):
        return None
    return nam_adopt()


def _graph_write(plan: Plan) -> None:
    graphdb.run(cypher.USERS_MERGE, {"rows": plan.users_merge})
    # Copies first, while the shared node is still NAM's: a copy of an owned one would clash with it.
    moves = {}
    for label, copies in plan.copies.items():
        moves[label] = graphdb.rows(cypher.NODE_COPY[label], {"rows": copies}) if copies else []
    graphdb.run(cypher.NODES_ADOPT, {"rows": plan.adopt})
    graphdb.run(cypher.MENTIONS_MOVE, {"rows": moves["Entity"]})
    graphdb.run(cypher.SOURCES_MOVE, {"rows": moves["Entity"]})
    graphdb.run(cypher.PREFERENCE_OWNERS_MOVE, {"rows": moves["Preference"]})
    copy_of = {(move["node"], move["user_id"]): move["copy"] for label in moves for move in moves[label]}
    for links in plan.links_copy.values():
        for link in links:
            for end in ("start", "end"):
                link[end] = copy_of.get((link[end], link["user_id"]), link[end])
    graphdb.run(cypher.ENTITY_SOURCES_MAP, {"nodes": plan.entity_nodes + list(copy_of.values())})
    graphdb.run(cypher.ENTITY_LABELS_DROP, {"nodes": plan.entity_nodes})
    graphdb.run(cypher.LINKS_ADOPT, {"rows": plan.links_adopt})
    for type_, links in plan.links_copy.items():
        if links:
            graphdb.run(cypher.LINK_COPY[type_], {"rows": links})
    graphdb.run(cypher.LINKS_DELETE, {"rels": plan.links_delete})
    graphdb.run(cypher.TRACES_LINK, {"rows": plan.traces})
    graphdb.run(cypher.TOOL_CALLS_LINK, {"nodes": plan.tool_calls})
    if plan.ids_missing:
        graphdb.run(cypher.IDS_GIVE, {"labels": list(cypher.MEMORY_LABELS)})


def nam_report(*, plan: Plan, dry_run: bool) -> dict:
    """Return what a plan adopts by label and person, the copies it makes and what it cannot own."""
    return {
        "dry_run": dry_run,
        "subjects": [{"identifier": identifier, "user_id": user_id, "new": identifier in plan.new_subjects}
                     for identifier, user_id in sorted(plan.subjects.items())],
        "adopted": plan.counts,
        "copies": {label: len(copies) for label, copies in plan.copies.items()},
        "embeddings_recomputed": len(plan.embed),
        "ids_given": plan.ids_missing,
        "unowned": [{k: v for k, v in row.items() if k != "node"} for row in plan.unowned],
        "not_memory": {row["label"]: row["count"] for row in rows(cypher.NOT_MEMORY_COUNTS)},
    }


@transaction.atomic
def subject_claim(*, user_id: str, account, actor) -> Subject:
    """Give a subject adopt_nam made to a person's own account; its placeholder account goes."""
    subject = Subject.objects.select_related("account").filter(user_id=user_id).first()
    if subject is None or not subject.account.username.startswith(PLACEHOLDER_PREFIX):
        raise ApplicationError("No subject adopted from neo4j-agent-memory waits to be claimed with that id.",
                               {"fields": {"user_id": [user_id]}})
    if Subject.objects.filter(account=account).exists():
        raise ApplicationError("That account already has a subject; erase or export it first.",
                               {"fields": {"account": [str(account)]}})
    placeholder = subject.account
    subject.account = account
    subject.save(update_fields=["account"])
    placeholder.delete()
    audit_record(actor=actor, action="subject.claim", user_id=user_id, target_type="subject",
                 after={"account": account.pk})
    return subject


# NAM's vector index of a property the portal never reads (ReasoningStep.embedding): NAM's, whatever its size.
NAM_ONLY_VECTOR_INDEXES = ("step_embedding_idx",)


def vector_index_conflicts(*, dimensions: int) -> list[dict]:
    """Return the vector indexes the portal cannot share as they are, each with its problem.

    `resize`: on one of memory's vector properties, of another size than the embedder's (NAM's
    default is 1536); adopt_nam recomputes the vectors, then install_labels --replace-vector-indexes
    builds the index again. `rename`: there, of the right size, under another name than NAM's, so a
    NAM agent's search (by name) finds no index (the portal's filtered index beside NAM's, on Neo4j
    2026, is not one). `foreign`: any other index of another size.
    """

    names = {(label, prop): name for name, label, prop in memory_schema.VECTOR_INDEXES}
    conflicts = []
    for index in rows(cypher.VECTOR_INDEXES):
        shared = names.get((index["label"], index["property"]))
        if index["dimensions"] != dimensions and shared:
            conflicts.append({**index, "problem": "resize", "expected": shared,
                              "stale": scalar(cypher.vectors_of_another_size(index["label"]),
                                              {"property": index["property"], "dimensions": dimensions})})
        elif shared and index["name"] != shared and index["name"] not in memory_schema.FILTERED_VECTOR_INDEXES:
            conflicts.append({**index, "problem": "rename", "expected": shared})
        elif index["dimensions"] != dimensions and not shared and index["name"] not in NAM_ONLY_VECTOR_INDEXES:
            conflicts.append({**index, "problem": "foreign"})
    return conflicts
