import re
from json import dumps

from django import template
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from memory.models import UNTRUSTED_WRITES
from memory.wording import (AUDIT_ACTIONS, AUDIT_FIELDS, SCOPE_LABELS, category_label, field_label, moment, status_label,
                            words)

register = template.Library()
NOT_SCORES = {"combined", "band", "type_compatible"}
# An audit value that names something by id (a uuid, a digest, a token prefix) is shown as code.
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-|[0-9a-f]{12,}")
CATEGORY_FIELDS = {"category", "consent", "categories"}
ID_FIELDS = {"correction", "version"}
ERASURE_SCOPES = {"all": "all of their memory", "category": "one part of their memory", "account": "their account"}
ISO_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}(T|$)")
# What an audit row's target is, as staff read it.
TARGET_WORDS = {"agent": "agent", "token": "token", "consent": "consent", "export": "download", "erasure": "erasure",
                "retention": "retention", "same_as": "merge", "fact": "fact", "preference": "preference",
                "entity": "person, place or thing", "message": "message", "trace": "reasoning trace",
                "held": "held memory", "subject": "person", "merge_queue": "merge proposals",
                "merge_decided": "decided merges", "merge_undo": "a merge to undo",
                "correction_queue": "proposed corrections", "held_queue": "held memory",
                "fact_timeline": "superseded facts", "facts_as_of": "facts on a day", "fact_correct": "a fact to correct",
                "fact_revert": "a fact to revert", "trace_detail": "a reasoning trace", "trace_list": "reasoning traces"}


@register.filter
def score(value) -> str:
    """Return a score with three decimals (cheaper than floatformat, which the queue calls hundreds of times)."""
    return f"{value:.3f}" if isinstance(value, int | float) else ""


@register.filter
def score_parts(scores: dict | None) -> list[tuple[str, str]]:
    """Return the named signals of a proposal's scores that are set, each with three decimals."""
    return [(name, score(value)) for name, value in (scores or {}).items() if name not in NOT_SCORES and value]


@register.filter
def mention(evidence: dict):
    """Return a proposal's sample text escaped, with the mention marked: its recorded spans, else its name."""
    evidence = evidence or {}
    sample = evidence.get("sample") or ""
    spans = sorted((m["start"], m["end"]) for m in evidence.get("mentions") or []
                   if isinstance(m.get("start"), int) and 0 <= m["start"] < m["end"] <= len(sample))
    if not spans and evidence.get("mention"):
        spans = [m.span() for m in re.finditer(re.escape(evidence["mention"]), sample, re.IGNORECASE)]
    out, at = [], 0
    for start, end in spans:
        if start < at:
            continue
        out += [escape(sample[at:start]), '<mark class="mention">', escape(sample[start:end]), "</mark>"]
        at = end
    out.append(escape(sample[at:]))
    return mark_safe("".join(out))


@register.filter
def mention_of(found: dict, name: str):
    """Return a message that mentions an entity, escaped, with the mention marked (its span, else its name)."""
    return mention({"sample": found["text"], "mention": name,
                    "mentions": [{"start": found["start"], "end": found["end"]}]})


@register.filter
def json(value) -> str:
    """Return a JSON value (a tool call's arguments or result) as indented JSON text."""
    return dumps(value, indent=2, ensure_ascii=False)


def changes(event) -> list[tuple[str, str, object, object]]:
    """Return what an audit event changed, field by field: (field, in words, before, after); None where a
    side does not name the field (the whole `before` is empty for an action that only creates). Ids (of the
    correction, of its new version) are left out: the row says what it is about."""
    before, after = event.before or {}, event.after or {}
    return [(key, AUDIT_FIELDS.get(key, words(key)), before.get(key), after.get(key))
            for key in dict.fromkeys([*before, *after])
            if before.get(key) != after.get(key) and key not in ID_FIELDS]


def audit_value(value, key: str = "", names: dict | None = None):
    """Return a value of an audit event in words: yes/no, lists joined, counts named, categories, scopes, fields,
    times and agents as the pages say them; any other id shows only on hover."""
    names = names or {}
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        counted = [(audit_value(v), AUDIT_FIELDS.get(k, words(k))) for k, v in value.items() if v]
        return format_html_join(", ", "{} {}", counted) if counted else "nothing"
    if isinstance(value, list):
        return format_html_join(", ", "{}", ((audit_value(v, key, names),) for v in value))
    if key in CATEGORY_FIELDS:
        return category_label(value).lower()
    if key == "scopes":
        return SCOPE_LABELS.get(value, value)
    if key == "fields":
        return field_label(value).lower()
    if key == "untrusted_writes":
        return dict(UNTRUSTED_WRITES).get(value, value).lower()
    if key == "status":
        return status_label(value)
    if key == "by":
        return ", accepted by ".join(names.get(part.removeprefix("agent "), part.removeprefix("reviewer "))
                                     for part in value.split(", accepted by "))
    if key == "scope":
        return ERASURE_SCOPES.get(value, value)
    if isinstance(value, str) and value in names:
        return names[value]
    if isinstance(value, str) and ISO_MOMENT.match(value):
        return moment(value)
    if isinstance(value, str) and ID.search(value):
        return format_html('<span title="{}">an id</span>', value)
    return value


@register.filter
def audit_row(event, names: dict) -> dict:
    """Return an audit event as staff read it: who did what, to whose memory, about what, and what changed, each
    in words; ids only on hover."""
    targets = names["targets"]
    actor = event.actor_label
    if actor.startswith("agent:") or actor.startswith("agent "):
        actor = targets.get(actor[6:], actor[6:])
    kind = TARGET_WORDS.get(event.target_type, words(event.target_type))
    about = targets.get(event.target_id)
    return {
        "who": actor or "the portal",
        "did": AUDIT_ACTIONS.get(event.action, words(event.action.replace(".", " "))),
        "person": event.subject_digest and names["people"].get(event.subject_digest, "a person without an account"),
        "about": format_html('<span title="{}">{}</span>', event.target_id, f"{kind} {about}" if about else kind)
        if event.target_type else "",
        "changed": [(name, None if old is None else audit_value(old, key, targets), audit_value(new, key, targets))
                    for key, name, old, new in changes(event)],
    }
