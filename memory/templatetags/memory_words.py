"""Template filters that put memory in a person's words (memory.wording) and its times in one style."""

from django import template

from memory import wording

register = template.Library()

DATE_FIELDS = {"valid_from", "valid_until"}


@register.filter
def fact(item, person: str = "you") -> str:
    """Return a fact (a graph.Fact, or a dict with subject, predicate, object, ...) as a sentence; for staff, about
    "the person"."""
    if isinstance(item, dict):
        return wording.fact_sentence(**{**item, "person": person})
    return wording.fact_text(item, person=person)


# Keys by their labels: {{ fact.status|status }}, {{ "long_term"|category }}...
for _name, _label in {"category": wording.category_label, "entity_type": wording.entity_type_label,
                      "status": wording.status_label, "role": wording.role_label,
                      "field_label": wording.field_label, "words": wording.words,
                      "said_of_the_person": wording.said_of_the_person, "name_words": wording.name_words}.items():
    register.filter(_name, _label)


register.filter("moment", wording.moment)


@register.filter
def field_value(value, name: str):
    """Return a stored field's value as a person reads it: words for keys, one style for times, lists joined."""
    if value is None or value == "":
        return "—"
    if name == "predicate":
        return wording.predicate_words(value)
    if name in ("subject", "object") and value == wording.PERSON:
        return "you"
    if name == "type":
        return wording.entity_type_label(value)
    if name in ("status", "extraction_status"):
        return wording.status_label(value)
    if name == "role":
        return wording.role_label(value)
    if name == "source":
        return wording.SOURCE_WORDS.get(value, wording.words(value))
    if name == "category" and value in wording.CATEGORY_LABELS:
        return wording.category_label(value)
    if name in DATE_FIELDS:
        return wording.day(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if name == "confidence" and isinstance(value, int | float):
        return f"{value:.0%}"
    return wording.moment(value)


@register.filter
def provenance(correction, person: str = "you") -> str:
    """Return who made a correction, in words, for the person ("you") or for staff ("the person")."""
    names = {correction.agent.agent_id: correction.agent.name} if correction.agent else {}
    return wording.provenance(correction.corrected_by, agent_names=names, person=person)


@register.filter
def held_source(held) -> str:
    """Return where held memory came from: "a web page (rail-deals.example), read with its web search tool", "the
    agent's calendar lookup tool", else whose words it is."""
    site = held.source_url.split("://", 1)[-1].split("/", 1)[0]  # the address's host, as the person reads it
    tool = held.tool_name and f"its {wording.words(held.tool_name)} tool"
    if site:
        return f"a web page ({site})" + (f", read with {tool}" if tool else "")
    return f"the agent’s {tool[4:]}" if tool else wording.SOURCE_WORDS.get(held.source, wording.words(held.source))


@register.filter
def held_reasons(held, person: str = "you") -> str:
    """Return why held memory was held, each reason once, the strongest few; for staff, about "the person"."""
    return wording.held_reasons_said(held.reasons, person=person)


@register.filter
def held_adds(held, person: str = "you") -> list[str]:
    """Return what held memory would add, each line as the reader is told it (for staff, of "the person")."""
    return held.adds if person == "you" else [wording.said_of_the_person(line) for line in held.adds]


@register.filter
def held_decider(held, person: str = "you") -> str:
    """Return who decided on held memory: the person ("you", or "the person" for staff), else the reviewer."""
    account = held.subject.account
    if account is not None and held.decided_by == account.email:
        return person
    return f"a reviewer ({held.decided_by})" if person == "you" else held.decided_by


@register.filter
def about_the_person(text: str, person: str = "you") -> str:
    """Return words written to the person as a staff page says them, about "the person"."""
    return wording.about_the_person(text, person=person)
