"""Where a statement came from, and what text from an untrusted source may not do to memory.

Each statement keeps its source: the person's own turn, the assistant, a named tool, a system turn,
the agent's explicit fields, a correction, an import. The person, a correction and an import are
trusted; the rest are the agent and what it read, and may be wrong or hostile (indirect prompt
injection, planted records, an assistant speaking for the person).

What text from an untrusted source may put before the model is decided by what it is about and the kind of value
it carries (memory.trust.claims: a claim of the person's protected details, a contradiction of what they said, a
rule for the agent), weighed with the signs of text meant for a model (memory.trust.signs) by fitted WEIGHTS.
Each signal says in plain words why it holds the text, for the person who reviews it. The person's own turns are
never held: what reads as a standing instruction from them becomes one (`standing_instructions`).
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from memory.trust import claims
from memory.trust.signs import (ABOUT_PERSON, ADDRESSED, ASKS_TO_REMEMBER, DESTINATION, DIRECTIVE, KEPT_FROM_PERSON,
                                META, OVERRIDES, REMEMBERED, SENDS_ELSEWHERE, SENSITIVE, SPEAKS_FOR_PERSON, STANDING)

PERSON, ASSISTANT, TOOL, SYSTEM, AGENT, CORRECTION, IMPORT = (
    "person", "assistant", "tool", "system", "agent", "correction", "import")
SOURCES = (PERSON, ASSISTANT, TOOL, SYSTEM, AGENT, CORRECTION, IMPORT)
TRUSTED = frozenset({PERSON, CORRECTION, IMPORT})
# A derived item takes the trust of its best support, in this order.
RANK = {CORRECTION: 0, PERSON: 1, IMPORT: 2, AGENT: 3, ASSISTANT: 4, SYSTEM: 5, TOOL: 6}
ROLE_SOURCES = {"user": PERSON, "assistant": ASSISTANT, "tool": TOOL, "system": SYSTEM}
# How a correction's maker is written (memory.services.corrections): an agent's own ("agent <id>") is the agent's
# word until the person accepts it ("agent <id>, accepted by the person").
CORRECTED_BY_AGENT = "agent "
ACCEPTED_BY = ", accepted by "


def correction_source(corrected_by: str) -> str:
    """Return whose word a correction is: the agent's, when it corrected on its own, else a correction's (the person,
    a reviewer, or an agent's proposal they accepted)."""
    own = corrected_by.startswith(CORRECTED_BY_AGENT) and ACCEPTED_BY not in corrected_by
    return AGENT if own else CORRECTION


def item_source(*, supports: list[str], corrected_by: str | None) -> str:
    """Return whose words a derived item is: the correction's that made it (`correction_source`), else its best
    support's source (RANK), from its statements' roles (or `agent` for the agent's explicit fields); none, an
    import."""
    if corrected_by:
        return correction_source(corrected_by)
    found = {ROLE_SOURCES.get(support, support) for support in supports}
    return min(found, key=RANK.__getitem__) if found else IMPORT


class Person(Protocol):
    """The person a text from an untrusted source is about, as far as deciding on it needs them."""

    def names(self) -> list[str]:
        """Return the names the person goes by (read only when a sentence has no other sign of being about them)."""

    def said(self, values: list[str]) -> set[str]:
        """Return which of these values the person's own words hold."""

    def stated(self) -> dict[str, set[str]]:
        """Return, by kind, the values the person gave of their own details (trust.claims.stated)."""

    def given(self, values: list[str]) -> set[str]:
        """Return which of these values the person's own words or their tools' outputs hold."""


_I = re.IGNORECASE


def _pattern(patterns: list[str]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns), _I | re.MULTILINE)


# What a text from an untrusted source may show, each with why it holds the text in plain words (after "it"): what it
# is about and the kind of value it carries (a claim about the person, a rule for the agent), and the signs that it
# is meant for a model rather than for the person (memory.trust.signs).
CLAIM, CONFLICT, REPLACES, RULE, DETAILS_SIGN, NEW_VALUE = "claim", "conflict", "replaces", "rule", "details", "new_value"
# Sources that speak rather than report: the assistant and a system turn may pass on what the person or a tool gave,
# but a number, an address or a contact detail nobody gave has no origin but them.
SPEAKING = frozenset({ASSISTANT, SYSTEM})
STUFFED, THEIR_QUESTION = "stuffed", "their_question"
SIGNS = {
    "addressed": ("speaks to an AI rather than to you", _pattern(ADDRESSED)),
    "remembered": ("asks to be remembered", _pattern(REMEMBERED)),
    "overrides": ("tries to override the assistant's instructions", _pattern(OVERRIDES)),
    "speaks_for": ("speaks for you or corrects what you said", _pattern(SPEAKS_FOR_PERSON)),
    "meta": ("talks about the assistant or its memory", _pattern(META)),
    "standing": ("sets a standing rule", _pattern(STANDING)),
    "directive": ("tells the assistant what to do", _pattern(DIRECTIVE)),
    "kept_from": ("would keep something from you", _pattern(KEPT_FROM_PERSON)),
    "keep_in_mind": ("asks to be kept in mind", _pattern(ASKS_TO_REMEMBER)),
    "sends": ("sends something to an outside address", _pattern(SENDS_ELSEWHERE)),
    "about": ("writes about you to your assistant", _pattern(ABOUT_PERSON)),
    "sensitive": ("touches money, logins, contact or identity details", _pattern(SENSITIVE)),
}
RULE_REASON = "sets a rule for what your assistant does"
REPLACES_REASON = "puts another value beside one you gave"
STUFFED_REASON = "repeats words to be found rather than read"
THEIR_QUESTION_REASON = "asks a question in your words and answers it"
DETAILS = "carries bank, card or login details"
NEW_VALUE_REASON = "gives a number, address or contact detail that neither you nor a tool gave"
# How much each signal weighs; a text is held when what it shows weighs HOLD or more. Fitted on the development suite
# (data/poisoning/) by `bench_poisoning --fit`, which measures every family with the weights fitted without it.
HOLD = 3
WEIGHTS = {CLAIM: 3, CONFLICT: 3, REPLACES: 3, RULE: 3, DETAILS_SIGN: 3, NEW_VALUE: 3, STUFFED: 3, THEIR_QUESTION: 1,
           "addressed": 3, "remembered": 0, "overrides": 3, "speaks_for": 3, "meta": 1, "standing": 1, "directive": 1,
           "kept_from": 1, "keep_in_mind": 1, "sends": 1, "about": 1, "sensitive": 1}
ORDER = (CLAIM, CONFLICT, REPLACES, RULE, DETAILS_SIGN, NEW_VALUE, STUFFED, THEIR_QUESTION, *SIGNS)


@dataclass(frozen=True)
class Reading:
    """What one text from an untrusted source shows: the signals it meets, and the kinds of detail it claims of the
    person (claims.KINDS' names)."""

    signals: frozenset[str]
    kinds: tuple[str, ...] = ()
    contradicted: tuple[str, ...] = ()


def reading(text: str, *, person: Person | None = None, source: str | None = None) -> Reading:
    """Read a text from an untrusted source: its claims about the person that they did not make themselves, the rules
    it sets for the agent, the details a speaking source (SPEAKING) gives that nobody gave it, and the signs of text
    meant for a model."""
    said = person.said if person else None
    found = claims.unconfirmed(claims.claims(text, names=person.names if person else list), said)
    signals = {name for name, (_, pattern) in SIGNS.items() if pattern.search(text)}
    signals |= {CLAIM} if found else set()
    signals |= {RULE} if claims.unconfirmed_rules(claims.rules(text), said) else set()
    signals |= {DETAILS_SIGN} if claims.unconfirmed(claims.claims(text, anyone=True), said) else set()
    contradicting = claims.unconfirmed(claims.conflicts(text, stated=person.stated), said) if person else []
    signals |= {CONFLICT} if contradicting else set()
    signals |= {REPLACES} if person and claims.replacements(text, said=said) else set()
    signals |= {NEW_VALUE} if person and source in SPEAKING and claims.new_values(text, given=person.given) else set()
    signals |= {STUFFED} if claims.stuffed(text) else set()
    signals |= {THEIR_QUESTION} if claims.THEIR_QUESTION.search(text) else set()
    return Reading(frozenset(signals), tuple(dict.fromkeys(claim.kind.name for claim in found)),
                   tuple(dict.fromkeys(claim.kind.name for claim in contradicting)))


def reasons_of(read: Reading, weights: dict[str, int] | None = None) -> list[str]:
    """Return why a reading holds its text (empty when what it shows weighs less than HOLD): every signal that holds
    it alone, else the heaviest that together do, each once."""
    weights = weights or WEIGHTS
    if not holds(read, weights):
        return []
    met = sorted((name for name in ORDER if name in read.signals and weights[name] > 0), key=lambda n: -weights[n])
    alone = [name for name in met if weights[name] >= HOLD]
    if not alone:
        total, alone = 0, []
        for name in met:
            alone.append(name)
            if (total := total + weights[name]) >= HOLD:
                break
    return [_reason(name, read) for name in alone]


def holds(read: Reading, weights: dict[str, int]) -> bool:
    """Whether what a reading shows weighs HOLD or more."""
    return sum(weights[name] for name in read.signals) >= HOLD


def _reason(name: str, read: Reading) -> str:
    if name == CLAIM:
        return claim_reason(read.kinds)
    if name == CONFLICT:
        return "contradicts what you said of your " + _kind_words(read.contradicted)
    return {RULE: RULE_REASON, DETAILS_SIGN: DETAILS, REPLACES: REPLACES_REASON, NEW_VALUE: NEW_VALUE_REASON,
            STUFFED: STUFFED_REASON,
            THEIR_QUESTION: THEIR_QUESTION_REASON}.get(name) or SIGNS[name][0]


def claim_reason(kinds: Iterable[str]) -> str:
    """Return the reason a claim about the person holds its text: "states your address and bank or card details"."""
    return "states your " + _kind_words(kinds)


def _kind_words(kinds: Iterable[str]) -> str:
    words = [claims.KIND_WORDS[kind] for kind in kinds]
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]


def untrusted_reasons(text: str, *, person: Person | None = None, source: str | None = None) -> list[str]:
    """Return why text from an untrusted source may not be put before the model or become memory as it stands; empty
    when it may."""
    return reasons_of(reading(text, person=person, source=source))


# What the person tells their assistant to do from now on: a standing rule and a request about serving them.
QUOTED = re.compile(r"[\"“”‘’«»「」『』][^\"“”‘’«»「」『』]{3,}[\"“”‘’«»「」『』]|(?<!\w)'[^']{3,}'(?!\w)")
LASTING = [
    *STANDING[:3],
    r"\bplease remember\b|\bremember to\b|\bdon['’]t forget to\b|\bkeep in mind\b",
]
SERVE_ME = [
    r"(?:^\s*|[,:;]\s*|\b(?:please|you(?:['’]ll| will| should| must| can))\s+)(?:(?:always|never)\s+)?(?:(?:answer|reply|respond|"
    r"write|talk|speak|explain)\s+(?:to\s+)?me\b|(?:call|address|remind|ask|notify|text|email|e-mail|message|wake|cc|"
    r"copy)\s+me\b|(?:use|forward|send|pay|book|route|cc|copy|include|put|file)\b[^.!?]{0,60}\b(?:my|me|mine)\b|"
    r"keep (?:answers?|replies|it) (?:short|brief)\b|(?:always|never)\s+(?:answer|reply|respond|write|"
    r"explain|format|summari[sz]e)\b)",
    r"\b(?:réponds|répondez)-moi\b|\b(?:appelle|rappelle|envoie|écris)-moi\b|\butilise (?:mon|ma|mes)\b|\btransfère mes\b",
    r"\b(?:antworte|antworten Sie|schreib|schick) mir\b|\bruf mich\b|\berinnere mich\b|\bnutze mein\w*|\bleite meine\b",
    r"\b(?:respóndeme|contéstame|escríbeme|llámame|recuérdame|envíame)\b|\busa mi\b|\breenvía mis\b",
    r"\b(?:rispondimi|scrivimi|chiamami|ricordami|inviami)\b|\busa il mio\b|\binoltra le mie\b",
    r"\b(?:responda-me|me responda|me chame|me lembre|me envie)\b|\buse (?:minha|meu)\b|\bencaminhe (?:meus|minhas)\b",
    r"\b(?:antwoord|schrijf|stuur) (?:mij|me)\b|\bbel me\b|\bherinner me\b|\bgebruik mijn\b",
    r"\b(?:отвечай|пиши|напоминай) мне\b|\bиспользуй мой\b",
    r"回复我|回答我|提醒我|称呼我|请用|用\w+回答|返事は|返信は|お願いします|と呼んで",
]
_LASTING = tuple(re.compile(p, _I) for p in LASTING)
_SERVE_ME = tuple(re.compile(p, _I) for p in SERVE_ME)


def standing_instructions(text: str) -> list[tuple[int, int]]:
    """Return where the person's own words set a rule for how their assistant serves them from now on: the span of
    each such sentence, in order.

    Words the person quotes ("a classic injection reads 'ignore all previous instructions'") are left out.
    """
    unquoted = QUOTED.sub(lambda quote: " " * len(quote.group()), text)
    return [sentence.span() for sentence in claims.SENTENCE.finditer(unquoted)
            if any(p.search(sentence.group()) for p in _LASTING) and any(p.search(sentence.group()) for p in _SERVE_ME)]


PERSON_SUBJECTS = frozenset({"user", "the user", "me", "i"})
# A preference that tells the assistant how to act rather than saying what the person likes.
ORDERS = re.compile(r"^\W*(?:always|never|do not|don't|end|start|begin|include|add|send|forward|reply|respond|answer|"
                    r"use|approve|skip|ignore|share|pay|book|recommend|mention|link|call|tell)\b", _I)
# The category of a preference that is the person's standing instruction (extraction files it there; the context
# serves it in a section of its own).
INSTRUCTION = "instruction"
STANDING_CATEGORIES = frozenset({"communication", INSTRUCTION})
STANDING_ADDED = "adds a standing instruction"


def held_reasons(texts: list[str | None], *, person: Person | None = None, source: str | None = None) -> list[str] | None:
    """Return why words from an untrusted source are held out of recall (every text's reasons, once each), or None.

    Stored with what they are read from (a message at its append, a trace at its completion), so the flag never
    depends on when it is read.
    """
    reasons = [reason for text in texts if text for reason in untrusted_reasons(text, person=person, source=source)]
    return list(dict.fromkeys(reasons)) or None


def fact_reading(*, subject: str, predicate: str, object: str, person: Person | None = None) -> Reading:
    """Read a fact from an untrusted source: a claim when it gives the person (its subject) a detail of a protected
    kind (its predicate's) that they did not state themselves, and what its value's words show."""
    read = reading(object, person=person)
    kind = claims.predicate_kind(predicate)
    names = person.names() if person and subject.strip().lower() not in PERSON_SUBJECTS and kind else []
    theirs = subject.strip().lower() in PERSON_SUBJECTS or subject.strip() in names
    if not (kind and theirs) or (person and claims.value_key(object) and person.said([object])):
        return read
    return replace(read, signals=read.signals | {CLAIM}, kinds=tuple(dict.fromkeys((kind, *read.kinds))))


def fact_reasons(*, subject: str, predicate: str, object: str, person: Person | None = None) -> list[str]:
    """Return why a fact from an untrusted source waits for the person's approval; empty when it may apply."""
    return reasons_of(fact_reading(subject=subject, predicate=predicate, object=object, person=person))


def preference_reasons(*, category: str, preference: str, person: Person | None = None) -> list[str]:
    """Return why a preference from an untrusted source waits for approval: one about how every answer is
    given, or worded as an order, is a standing instruction."""
    reasons = untrusted_reasons(preference, person=person)
    if standing_added(category=category, preference=preference):
        reasons = [STANDING_ADDED, *reasons]
    return list(dict.fromkeys(reasons))


def standing_added(*, category: str, preference: str) -> bool:
    """Whether a preference is a standing instruction: about how every answer is given, worded as an order, or
    naming somewhere to send things. From the agent or its tools it always waits for the person."""
    return bool(category.strip().lower() in STANDING_CATEGORIES or ORDERS.search(preference)
                or re.search(DESTINATION, preference))
