import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()


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
