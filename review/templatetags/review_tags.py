import re
from json import dumps

from django import template
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from memory.wording import category_label, words

register = template.Library()
NOT_SCORES = {"combined", "band", "type_compatible"}
# An audit value that names something by id (a uuid, a digest, a token prefix) is shown as code.
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-|[0-9a-f]{12,}")
CATEGORY_FIELDS = {"category", "consent"}


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


@register.filter
def changes(event) -> list[tuple[str, str, object, object]]:
    """Return what an audit event changed, field by field: (field, in words, before, after); None where a
    side does not name the field (the whole `before` is empty for an action that only creates)."""
    before, after = event.before or {}, event.after or {}
    return [(key, words(key), before.get(key), after.get(key)) for key in dict.fromkeys([*before, *after])
            if before.get(key) != after.get(key)]


@register.filter
def audit_value(value, key: str = ""):
    """Return a value of an audit event in words: yes/no, lists joined, categories named, ids as code."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return format_html_join(", ", "{} {}", ((words(k), audit_value(v)) for k, v in value.items()))
    if isinstance(value, list):
        return format_html_join(", ", "{}", ((audit_value(v, key),) for v in value))
    if key in CATEGORY_FIELDS:
        return category_label(value).lower()
    if isinstance(value, str) and ID.search(value):
        return format_html("<code>{}</code>", value)
    return value
