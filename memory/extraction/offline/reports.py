"""What a work turn reports about the things it names, as facts that read as a line.

People report at work in a few frames. A reporting verb frames a clause ("Reviewer flagged that RateLimiter has
no test coverage", "Ingestor reported the pipeline depends on X"), and a decision's clause may say what will be
("Planner decided the project will use PostgreSQL"). An act on a thing states its new value or who has it:
setting or classifying it ("set the token expiry to 15 minutes", "re-classified X's priority level as critical"),
moving it to a time, assigning it, putting someone in charge of it, tracing it to a cause, giving it a title.
Outside a report, a clause says something of its subject only when the subject is a name the turn mentions
("Service_Checkout is experiencing elevated error rates").

A fact is (subject, predicate, object): a name or the noun phrase said, without its article; the relation as said
("DEPENDS_ON", "IS_EXPERIENCING"); a value set is what the thing IS, and one of a name's attributes is HAS_<it>
("the pipeline's source format" -> pipeline HAS_SOURCE_FORMAT), so a later value supersedes it. "Has no test
coverage" gives test coverage the value "none" for the same reason.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from memory.extraction import english
from memory.extraction.dates import stated_date
from memory.extraction.offline.tokens import Token

REPORT_CONFIDENCE = 0.7
# A number or an amount ("$18,400", "14:02", "23%"), else a word of a name or a noun phrase ("us-east-1", "Ticket_4471").
AMOUNT = r"[$€£]?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|[$€£]?\d[\d.:]*%?"
WORD = rf"(?:{AMOUNT}|[\w#@$€£][\w#@$€£.:/+&%-]*)"
PHRASE = rf"{WORD}(?:\s+{WORD}){{0,5}}?"
DETERMINER = r"(?:(?:the|a|an|its|their|our|this|that|these|those|his|her|my|your)\s+)"
SUBJECT = rf"(?P<subject>{DETERMINER}?(?:{WORD}['’]s?\s+)?{PHRASE})"
TARGET = rf"(?P<target>{DETERMINER}?(?:{WORD}['’]s?\s+)?{PHRASE})"
NAME = r"(?:[A-Z0-9][\w.-]*|[a-z]+_[\w.-]+)(?:\s+[A-Z0-9][\w.-]*)*"
ATTRIBUTE = r"[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}"
# A name alone, or a name's attribute, as a clause's subject ("Ms_Harlow", "Maya's swimming lessons").
NAMED = rf"(?:the\s+)?{NAME}(?:['’]s\s+{ATTRIBUTE})?"
# A verb of acting, not the participle of an adjective ("a limited edition", "the updated plan").
ACTING = r"(?<!\ba\s)(?<!\ban\s)(?<!\bthe\s)(?<!\bmy\s)(?<!\bour\s)(?<!\byour\s)"
# A lowercase thing, one to three words and no preposition ("the article", not "a conversation with someone").
THING = r"(?:(?!(?:with|of|for|to|from|in|on|at|by|about|and|or)\b)[a-z][a-z-]*\s+){0,2}[a-z][a-z-]*"
# Adverbs that may stand before a verb or a value ("RateLimiter currently has", "directly contradict"); a list, not
# every word ending in -ly ("a row count anomaly traced to X").
ADVERBS = r"(?:(?:" + "|".join(sorted(english.CLAUSE_ADVERBS, key=len, reverse=True)) + r")\s+)*"
BE = r"(?:is|are|was|were|has been|have been|remains|remain|stays|will be|is going to be)"
PARTICLE = r"(?:on|upon|to|with|from|into|for|in|at|against|over|through|behind|off)"
BY = r"(?:by|to|for|with|through|on|in|at|from|as|until|under|behind|via|against)"
QUOTED = r"[\"“‘'](?P<quoted>[^\"”’'\n]{1,80})[\"”’']"
IN_CHARGE = r"(?P<relation>in charge of|responsible for|accountable for|(?:the\s+)?owner of|(?:the\s+)?lead (?:on|for))"
# What work says a thing is, said of a name outside a report too ("Service_Checkout is down").
STATUS = (r"(?:live|down|up|offline|online|green|red|amber|blocked|done|complete|completed|resolved|stable|healthy|"
          r"degraded|broken|deprecated|ready|paused|closed|open|merged|deployed|failing|passing|on hold|on track|at risk|"
          r"behind schedule|ahead of schedule|over budget|under budget|in progress|in review|out of stock)")
# A note's heading before what it reports: "Update - the build is green", up to three words before a colon ("Change
# of plan: the ferry leaves at 21:30").
HEADING = re.compile(r"^(?:(?i:note|update|fyi|reminder|status|heads[- ]up|ps|edit|news)\s*[–—-]|(?:[\w'’-]+\s+){0,2}[\w'’-]+:)\s*")
# A predicate written as agents write them, "OWNED_BY": read as the words it stands for.
PREDICATE_WORD = re.compile(r"\b[A-Z]+(?:_[A-Z]+)+\b")


def _third_person(base: str) -> str:
    if base in english.IRREGULAR_VERBS:
        return english.IRREGULAR_VERBS[base][0]
    if base.endswith(("s", "x", "z", "ch", "sh", "o")):
        return base + "es"
    return base[:-1] + "ies" if base.endswith("y") and base[-2] not in "aeiou" else base + "s"


def _past(base: str) -> str:
    if base in english.IRREGULAR_VERBS:
        return english.IRREGULAR_VERBS[base][1]
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ied"
    return base + "ed"


def _alternatives(words) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)).replace(r"\ ", r"\s+")


VERBS = english.RELATING_VERBS
# A verb in the third person or the past, whatever it is ("teaches", "practises", "arrived"): not a word that says
# what something is or has, nor one of the few that end so without being verbs.
OPEN_FINITE = (r"(?!(?:is|was|has|does|goes|this|thus|plus|less|unless|always|perhaps|its|yes|us|as|towards|afterwards)\b)"
               r"[a-z]{2,}(?:s|ed)\b")
FINITE = _alternatives({_third_person(v) for v in VERBS} | {_past(v) for v in VERBS})
BASE = _alternatives(VERBS)
THIRD_PERSON = {_past(v): _third_person(v) for v in VERBS} | {v: _third_person(v) for v in VERBS}
PARTICIPLES = _alternatives(english.RELATING_PARTICIPLES)
REPORTING = _alternatives(english.REPORTING_VERBS)
# What shows a clause true ("Tests show that X is returning 502 errors"); these report only with "that".
SHOWING = _alternatives({"show", "shows", "showed", "indicate", "indicates", "indicated", "reveal", "reveals", "revealed",
                         "prove", "proves", "proved", "confirm", "confirms"})

# "Reviewer flagged that ...", "Ingestor reported the ...", "After review, Counsel confirmed ...", "Confirmed the ...".
REPORT_FRAME = re.compile(
    rf"^(?:[^,]{{1,40}},\s+)?(?:(?P<reporter>{WORD}(?:\s+{WORD}){{0,3}}?)\s+)??{ADVERBS}(?:(?:has|have|had|then)\s+)?"
    rf"(?i:(?P<verb>{REPORTING})\s+(?:(?:to\s+)?(?:us|me|him|her|them|everyone|the team)\s+)?(?:that\s+)?|"
    rf"(?:{SHOWING})\s+that\s+)(?P<clause>\S.*)$")
ACCORDING = re.compile(r"^(?i:according to)\s+[^,]{1,40},\s+(?P<clause>\S.*)$")
# What something is done for ("used the WebSearch tool to check prices"): the purpose is no part of the object.
PURPOSE_VERBS = {"be", "have", "make", "check", "help", "get", "keep", "see", "do", "go", "test", "build", "ensure", "avoid",
                 "improve", "find", "try", "get", "let", "give", "take", "save", "speed", "catch", "verify", "confirm"}
# Where a value or an object ends: a clause after it ("as critical after reviewing impact").
VALUE_END = re.compile(r",\s|;|:\s|\s[-–—]+\s|\s(?:after|before|because|since|once|while|until|unless|so that|so|which|who|"
                       r"whereas|but|pending|following|and then)\s|\sand\s(?=[a-z]+ed\b)|\s(?:in order\s)?to\s(?=(?:"
                       + "|".join(sorted(english.RELATING_VERBS | PURPOSE_VERBS)) + r")\b)", re.IGNORECASE)
VALUE_WORDS = 8
PHRASE_WORDS = 5
# Words a noun phrase never opens with, or never holds (a clause of its own: "the module that X owns").
NOT_OPENING = {"i", "we", "you", "he", "she", "they", "it", "me", "us", "him", "them", "this", "that", "these", "those",
               "there", "here", "something", "anything", "everything", "nothing", "someone", "anyone", "everyone",
               "one", "my", "your", "his", "her", "up", "out", "off", "to", "not", "no", "what", "which", "who", "how",
               "when", "where", "why", "if", "whether", "because", "so", "and", "or", "but", "then", "about", "from",
               "with", "of", "for", "in", "on", "at", "by", "into", "onto", "over", "under", "through", "after", "before",
               "during", "since", "until", "as"}
NOT_INSIDE = {"that", "which", "who", "whom", "whose", "where", "when", "if", "because", "whether", "i", "we", "you",
              "he", "she", "they", "it", "is", "are", "was", "were", "be", "been"}
# After a name, a generic noun ("the Finance_Eng team", "the RateLimiter component") or a preposition ("PostgreSQL
# for the storage layer") leaves the name alone as the object, so facts about it meet at its name.
HEAD_NOUNS = english.ORGANIZATION_HEADS | english.ARTEFACT_NOUNS | set(english.GENERIC_NOUNS) | {"dataset", "table", "file",
                                                                                                "system", "project"}
TAIL_PREPOSITIONS = {"for", "in", "at", "from", "with", "on", "by", "via", "under", "during", "within", "as", "to",
                     "last", "this", "next", "yesterday", "today", "tomorrow", "earlier", "later", "recently"}
# A value that is a time: moving a meeting to it reschedules the meeting.
TIME_WORDS = re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|tonight|next|"
                        r"noon|midnight|morning|afternoon|evening|week|month|quarter|q[1-4]|end of|eod|eow|"
                        r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2})\b", re.IGNORECASE)
TIME_REFERENCE = date(2000, 1, 1)
MONTHS = _alternatives(english.MONTHS)
# Verbs in the progressive that say what someone means to do, not what a thing is doing.
INTENT_PROGRESSIVE = {"being", "having", "doing", "going", "trying", "planning", "hoping", "thinking", "looking", "getting", "waiting", "wondering",
                      "considering", "starting", "beginning"}


@dataclass(frozen=True)
class ReportForm:
    """A way a clause states a fact: its pattern, how its groups make (subject, predicate, object), and words
    the clause must hold for the pattern to be worth trying (most chat holds none)."""

    pattern: re.Pattern
    read: Callable[[re.Match], tuple[str, str, str] | None]
    cue: re.Pattern | None = None


def form(pattern: str, read, cue: str | None = None) -> ReportForm:
    return ReportForm(re.compile(pattern), read, re.compile(cue, re.IGNORECASE) if cue else None)


def _as_said(verb: str, particle: str | None) -> str:
    return "_".join(filter(None, [verb, particle]))


def _is(match):
    return match["target"], "IS", match["value"]


def _moved(match):
    value = match["value"]
    timed = TIME_WORDS.search(value) or stated_date(value, reference_date=TIME_REFERENCE)
    return match["target"], "SCHEDULED_FOR" if timed else "MOVED_TO", value


def _titled(match):
    label = match["label"] or ("name" if match["verb"] in ("named", "called", "codenamed") else "title")
    return match["thing"], "HAS_" + label, match["quoted"] or match["value"]


def _in_charge(match):
    relation = re.sub(r"^the\s+", "", match["relation"])
    return match["owner"], "OWNS" if relation == "owner of" else relation, match["target"]


# Acts on a thing, read wherever they stand in a clause; the one acting is left out.
ACTS = [
    form(rf"{ACTING}(?i:\b(?:set|changed|updated|configured|raised|lowered|increased|decreased|reduced|bumped|adjusted|"
         rf"reset|extended|shortened|capped|limited|upgraded|downgraded|switched|tightened|relaxed))\s+{TARGET}\s+"
         rf"(?:to\s+|at\s+(?=[$€£]?\d))(?P<value>.+)", _is),
    form(rf"(?i:\b(?:re-?classified|classified|marked|labell?ed|tagged|rated|flagged|categori[sz]ed|triaged|"
         rf"re-?prioriti[sz]ed|prioriti[sz]ed|declared))\s+{TARGET}\s+as\s+(?P<value>.+)", _is),
    form(rf"(?i:\b(?:moved|rescheduled|postponed|pushed(?:\s+back)?|brought\s+forward|shifted|delayed|pulled\s+in))\s+"
         rf"{TARGET}\s+(?:back\s+)?(?:to|until|till)\s+(?P<value>.+)", _moved),
    form(rf"(?i:\b(?:assigned|reassigned|handed(?:\s+over)?|delegated|allocated|transferred|routed|escalated))\s+"
         rf"{TARGET}\s+(?:over\s+)?to\s+(?P<value>.+)", lambda m: (m["target"], "ASSIGNED_TO", m["value"])),
    form(rf"(?i:\b(?:assigned|reassigned))\s+(?P<owner>{NAME})\s+(?P<target>the\s+{PHRASE})$",
         lambda m: (m["target"], "ASSIGNED_TO", m["owner"])),
    form(rf"(?i:\b(?:put|placed|made|named|appointed|left))\s+(?P<owner>{NAME}|{DETERMINER}{PHRASE})\s+{IN_CHARGE}\s+"
         rf"(?P<target>.+)", _in_charge),
    form(rf"(?i:\b(?:traced|tracked\s+down|narrowed\s+down|attributed|pinned|root-caused))\s+{TARGET}\s+(?:back\s+)?to\s+"
         rf"(?P<value>.+)", lambda m: (m["target"], "TRACED_TO", m["value"])),
    form(rf"\b(?:the|a|an|its|their|our|this|that)\s+(?P<thing>{THING})\s+(?:with\s+(?:the\s+|a\s+|an\s+)?"
         rf"(?P<label>(?:working\s+|final\s+|new\s+|draft\s+)?(?:title|headline|name|subject line|tagline|slogan|codename))|"
         rf"(?P<verb>titled|entitled|called|named|codenamed))\s+(?:{QUOTED}|(?P<value>{NAME}))", _titled,
         cue=r"\b(?:titled|entitled|called|named|codenamed|title|headline|name|subject line|tagline|slogan|codename)\b"),
    form(rf"(?P<owner>{NAME})['’]s\s+(?:dependency|dependence|reliance)\s+on\s+(?P<value>{NAME})",
         lambda m: (m["owner"], "DEPENDS_ON", m["value"]), cue=r"['’]s\s+(?:dependency|dependence|reliance)\b"),
    form(rf"(?i:\b(?:chose|picked|selected|went\s+with|settled\s+on|opted\s+for|decided\s+on|standardi[sz]ed\s+on))\s+"
         rf"(?P<choice>{NAME})\s+(?:for|as)\s+(?P<purpose>.+)", lambda m: (m["purpose"], "USES", m["choice"])),
]


def _copula(match):
    """Read "X is a primary source" (IS_A), "X is at 95%" (IS_AT) and "X is down" (IS)."""
    value = match["value"]
    article = re.match(r"(?:a|an)\s+(?=\S)", value)
    if article:
        return match["subject"], "IS_A", value[article.end():]
    preposition = re.match(r"(at|on|in|under|over|above|below|behind|within|ahead of|down to|up to|back to)\s+", value)
    if preposition:
        return match["subject"], "IS_" + preposition[1], value[preposition.end():]
    return match["subject"], "IS", value


def _related(match):
    modal = match.groupdict().get("modal")
    verb = re.sub(r"\s+", " ", match["verb"].lower())
    return match["subject"], _as_said(THIRD_PERSON.get(verb, verb) if modal else verb, match["particle"]), match["value"]


# Any verb, of a name alone ("Ms_Harlow teaches at X", "Leo's lessons moved to Friday"): its fact is `weak`, giving
# way to what the relation rules read of the same things.
ANY_VERB = form(rf"^(?P<subject>{NAMED})\s+{ADVERBS}(?P<verb>{OPEN_FINITE})(?:\s+(?P<particle>{PARTICLE}))?\s+"
                rf"(?P<value>.+)$", _related)
# What a clause states of its subject, in the order tried: the first that reads the clause wins. `framed` forms
# are read only in a reported clause (not of any name a sentence opens with: "Caroline is a great friend").
STATES = [
    (form(rf"^{SUBJECT}\s+{ADVERBS}(?:has|have|had)\s+(?:no|zero)\s+(?P<attribute>{ATTRIBUTE})$",
          lambda m: (m["subject"], "HAS_" + m["attribute"], "none")), False),
    (form(rf"^{SUBJECT}\s+{ADVERBS}(?:has|have|had)\s+(?:a|an|the)\s+(?P<attribute>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,3}}?)"
          rf"\s+(?:of|at)\s+(?P<value>.+)$", lambda m: (m["subject"], "HAS_" + m["attribute"], m["value"])), False),
    (form(rf"^{SUBJECT}\s+{ADVERBS}(?:has|have|had)\s+(?:about\s+|around\s+|roughly\s+|only\s+|over\s+)?"
          rf"(?P<value>{AMOUNT})\s+(?P<attribute>{ATTRIBUTE})$", lambda m: (m["subject"], "HAS_" + m["attribute"], m["value"])),
     False),
    (form(rf"^(?:the\s+)?(?P<attribute>{ATTRIBUTE})\s+(?:of|for)\s+(?P<owner>{NAME})\s+{BE}\s+{ADVERBS}(?:set\s+to\s+)?"
          rf"(?P<value>.+)$", lambda m: (f"{m['owner']}'s {m['attribute']}", "IS", m["value"])), False),
    (form(rf"^{SUBJECT}\s+{BE}\s+{ADVERBS}{IN_CHARGE}\s+(?P<target>.+)$",
          lambda m: _in_charge({"owner": m["subject"], "relation": m["relation"], "target": m["target"]})), False),
    (form(rf"^{SUBJECT}\s+{BE}\s+{ADVERBS}(?P<verb>{PARTICIPLES})\s+(?P<particle>{BY})\s+(?P<value>.+)$", _related), False),
    # Without "is", only in a report ("detected a row count anomaly traced to X"): "Ottilie signed with X" is active.
    (form(rf"^{SUBJECT}\s+{ADVERBS}(?P<verb>{PARTICIPLES})\s+(?P<particle>{BY})\s+(?P<value>.+)$", _related), True),
    (form(rf"^{SUBJECT}\s+(?:is|are|was|were)\s+{ADVERBS}(?P<verb>(?!(?:{'|'.join(INTENT_PROGRESSIVE)})\b)[a-z]+ing)"
          rf"(?:\s+(?P<particle>{PARTICLE}))?\s+(?P<value>.+)$",
          lambda m: (m["subject"], _as_said("is_" + m["verb"], m["particle"]), m["value"])), False),
    (form(rf"^{SUBJECT}\s+{ADVERBS}(?P<verb>{FINITE})(?:\s+(?P<particle>{PARTICLE}))?\s+(?P<value>.+)$", _related), False),
    (ANY_VERB, False),
    (form(rf"^(?P<subject>{DETERMINER}?(?:{WORD}['’]s?\s+)?(?:{WORD}\s+){{0,4}}\w+s)\s+{ADVERBS}(?P<verb>{BASE})"
          rf"(?:\s+(?P<particle>{PARTICLE}))?\s+(?P<value>.+)$", _related), False),
    (form(rf"^{SUBJECT}\s+(?P<modal>will|shall|is going to|are going to)\s+{ADVERBS}(?P<verb>{BASE})"
          rf"(?:\s+(?P<particle>{PARTICLE}))?\s+(?P<value>.+)$", _related), False),
    (form(rf"^{SUBJECT}\s+{BE}\s+{ADVERBS}(?P<value>{STATUS})(?:\s+(?:again|now|today|already|still|too|as well))?$", _copula),
     False),
    (form(rf"^{SUBJECT}\s+{BE}\s+{ADVERBS}(?:set\s+to\s+)?(?P<value>.+)$", _copula), True),
]
# What a thing is or does when what follows is a value ("the energy tariff is 24.5p per kWh", "the ferry now leaves
# at 21:30", "the car hire reference is K7Q2"): said of any thing the sentence opens with, not only of a name.
NOT_ADVERB = rf"(?!(?:{'|'.join(english.CLAUSE_ADVERBS)})\b)"
VALUED = form(rf"^(?P<subject>(?i:the|our|their|its)\s+(?:{NOT_ADVERB}[a-z][a-z-]*\s+){{0,3}}{NOT_ADVERB}[a-z][a-z-]*"
              rf"(?:['’]s\s+{ATTRIBUTE})?)\s+{ADVERBS}"
              rf"(?:(?P<be>{BE})|(?P<verb>{OPEN_FINITE})(?:\s+(?P<particle>{PARTICLE}))?)\s+{ADVERBS}(?P<value>.+)$",
              lambda m: _copula(m) if m["be"] else _related(m))
UNSTATED = re.compile(f"{english.NEGATION}|{english.HEDGE}|{english.ENDED}")
FUTURE = re.compile(english.FUTURE)
HAS_NONE = re.compile(r"\b(?:has|have|had)\s+(?:no|zero)\b")
NAME_WORD = re.compile(r"[A-Z][\w.-]*|[\w.-]*_[\w.-]*|[A-Za-z]+\d[\w.-]*")
IDENTIFIER = re.compile(r"\S*(?:_|[a-z][A-Z]|\d)\S*")
LEADING_DETERMINERS = {"the", "a", "an", "its", "their", "our", "this", "that", "these", "those"}


class ReportReader:
    """Read what each sentence of a turn reports (from a Document's `text`, `sentences`, `entities` and `unnamed`)."""

    def _reports(self, offset: int) -> list[tuple[str, str, str, date | None, bool]]:
        """Return (subject, predicate, object, the day it holds from, weak) for what the text after `offset` reports;
        a weak one is read by the open forms (any verb, any thing given a value, an identifier's "is"), and gives way
        to a fact the relation rules read of the same things."""
        found = []
        for sentence in self.sentences:
            if sentence[0].start < offset or sentence[-1].text == "?":
                continue
            said = PREDICATE_WORD.sub(lambda m: m.group().replace("_", " ").lower(), self.text[sentence[0].start:_end(sentence)])
            said = HEADING.sub("", said)
            for (subject, predicate, value), weak in self._sentence_reports(said):
                # A date inside the value is what the value says ("moved the pour to next Monday"), not when it began.
                found.append((subject, predicate, value, stated_date(said.replace(value, " "), reference_date=self.reference_date),
                              weak))
        return found

    def _sentence_reports(self, said: str) -> list[tuple[tuple[str, str, str], bool]]:
        frame = REPORT_FRAME.match(said) or ACCORDING.match(said)
        clause = frame["clause"] if frame else said
        decision = frame is not None and (frame.groupdict().get("verb") or "").lower() in english.DECISION_VERBS
        if frame is not None and not _asserted(said[:frame.start("clause")], decision=False):
            return []
        if not _asserted(clause, decision=decision):
            return []
        reporter = frame.groupdict().get("reporter") if frame else None
        if decision and clause.startswith("to ") and reporter and reporter.lower() not in NOT_OPENING:
            clause = f"{reporter} will {clause[3:]}"  # "The team decided to use X": what the team will do
        facts = [(self._report(*act.read(m)), False) for act in ACTS if act.cue is None or act.cue.search(clause)
                 for m in act.pattern.finditer(clause)]
        # What is said of an identifier ("Casa_Azul is in Comillas") is read as a report's clause is: no person's.
        identified = frame is None and IDENTIFIER.fullmatch(_first_word(clause)) is not None
        for state, framed in STATES if frame or self._opens_with_name(clause) else ():
            found = state.pattern.match(clause) if frame or identified or not framed else None
            fact = self._report(*state.read(found)) if found else None
            if fact is not None and (frame or self._named(fact[0], person=fact[1] != "IS")):
                facts.append((fact, state is ANY_VERB or (framed and identified)))
                break
        else:
            valued = VALUED.pattern.match(clause)
            if valued and _a_value(valued["value"]):
                facts.append((self._report(*VALUED.read(valued)), True))
        return list(dict.fromkeys(f for f in facts if f[0] is not None))

    def _report(self, subject: str, predicate: str, value: str) -> tuple[str, str, str] | None:
        """Return the fact as it reads: names and noun phrases without their articles, an attribute of a name as HAS_<it>."""
        subject, value = _phrase(subject, PHRASE_WORDS + 1), _phrase(VALUE_END.split(value, maxsplit=1)[0], VALUE_WORDS, titled=True)
        if not subject or not value or (predicate == "IS" and value.lower().split()[-1] in english.EVALUATIONS):
            return None
        owner, mark, attribute = re.split(r"(['’]s?\s+)", subject, maxsplit=1) if re.search(r"['’]s?\s", subject) else (subject, "", "")
        if predicate == "IS" and mark and re.fullmatch(ATTRIBUTE, attribute):
            subject, predicate = owner, "HAS_" + attribute
        predicate = re.sub(r"[^A-Z0-9]+", "_", predicate.upper()).strip("_")
        return _name_alone(subject), predicate, value if _a_value(value) else _name_alone(value)

    def _opens_with_name(self, clause: str) -> bool:
        """Return whether a clause may open with a name this turn mentions (a quick look before reading it)."""
        first = _first_word(clause).lower()
        return IDENTIFIER.fullmatch(first) is not None or any(
            form.split()[0].lower() == first for e in self.entities for form in e.surface_forms if form.split())

    def _named(self, subject: str, *, person: bool) -> bool:
        """Return whether a clause's subject (or the owner in "X's attribute") is a name this turn mentions; a
        person's only with `person` ("Caroline is ready" sets no value on her)."""
        owner = re.split(r"['’]s?\s", subject, maxsplit=1)[0].lower()
        if owner in self.participants:
            return False
        return IDENTIFIER.fullmatch(owner) is not None or any(
            owner == form.lower() for e in self.entities if id(e) not in self.unnamed and (person or e.type != "PERSON")
            and not all(m.start in self.tentative for m in e.mentions) for form in e.surface_forms)


def _first_word(clause: str) -> str:
    """Return the word a clause opens with, after its article, without a possessive's "'s"."""
    words = clause.split(maxsplit=2)
    first = words[1] if len(words) > 1 and words[0].lower() in LEADING_DETERMINERS else words[0] if words else ""
    return re.split(r"['’]", first)[0]


def _end(sentence: list[Token]) -> int:
    """Return where a sentence's words end, before its closing full stop or exclamation mark."""
    return sentence[-2].end if len(sentence) > 1 and sentence[-1].text in ".!" else sentence[-1].end


def _asserted(text: str, *, decision: bool) -> bool:
    """Return whether a clause states what is: not negated (but "has no X" states a value), hedged, or to come
    (unless decided: "decided the project will use X")."""
    if UNSTATED.search(HAS_NONE.sub("has", text)):
        return False
    return decision or not FUTURE.search(text)


def _a_value(text: str) -> bool:
    """Return whether a clause's rest opens with a value: an amount, a code with a digit, or a time."""
    return bool(re.match(rf"(?:{AMOUNT}|[A-Za-z]*\d|(?i:{MONTHS})\b)", text) or TIME_WORDS.match(text)
                or stated_date(text, reference_date=TIME_REFERENCE))


def _phrase(text: str, limit: int, *, titled: bool = False) -> str | None:
    """Return a noun phrase or a value without its article, quotes and closing marks; None for a pronoun or a clause.

    With `titled`, a capitalised article is part of a title ("The Adoption Paradox") and stays.
    """
    words = text.strip(" \"“”‘’'.,;:!").split()
    while words and words[0].lower() in LEADING_DETERMINERS and not (titled and words[0][0].isupper()):
        words = words[1:]
    if not words or len(words) > limit or words[0].lower() in NOT_OPENING or any(w.lower() in NOT_INSIDE for w in words):
        return None
    return " ".join(words).strip(" \"“”‘’'")


def _name_alone(phrase: str) -> str:
    """Return the name a phrase opens with when what follows only says what kind of thing it is, or what for."""
    words = phrase.split()
    named = next((i for i, word in enumerate(words) if not NAME_WORD.fullmatch(word)), len(words))
    if 0 < named < len(words) and ((named == len(words) - 1 and words[named].lower() in HEAD_NOUNS)
                                   or words[named].lower() in TAIL_PREPOSITIONS):
        return " ".join(words[:named])
    return phrase
