import re
from datetime import UTC, date, datetime

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()
NOT_SCORES = {"combined", "band", "type_compatible"}


@register.filter
def score(value) -> str:
    """Return a score with three decimals (cheaper than floatformat, which the queue calls hundreds of times)."""
    return f"{value:.3f}" if isinstance(value, int | float) else ""


@register.filter
def score_parts(scores: dict) -> list[tuple[str, str]]:
    """Return the named signals of a proposal's scores that are set, each with three decimals."""
    return [(name, score(value)) for name, value in scores.items() if name not in NOT_SCORES and value]


@register.filter
def mention(evidence: dict):
    """Return a proposal's sample text escaped, with the mention marked: its recorded spans, else its name."""
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
def when(value) -> str:
    """Return a stated date as its day and a moment to the minute (UTC); empty for None."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    return value.isoformat() if isinstance(value, date) else ""
