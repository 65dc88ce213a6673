"""Relations, facts and attributes read from the text between two slots of one clause."""

import re

from memory.extraction import english
from memory.extraction.offline.names import RULE_CUE, WEAK_CUE
from memory.extraction.offline.references import REFERENCE_CONFIDENCE, Entity, Slot
from memory.extraction.offline.tokens import Token
from memory.extraction.rules import IMPLICIT_EVENT, MUTUAL_ACQUAINTANCE, RULES, SPEAKER

NEGATION = re.compile(english.NEGATION)
UNASSERTED = re.compile(rf"{english.NEGATION}|{english.ENDED}|{english.HEDGE}|{english.FUTURE}")
# "participated in a 5K charity run": the verb has an object of its own, named or not.
OWN_OBJECT = re.compile(r"\s+(?:in|at)\s+(?:a|an|the|my|our|their|his|her|this|some|\d)\b")
# A pronoun in the subject's form starts a clause of its own ("I know she does"): it is never an object.
NOMINATIVE = {"he", "she", "they"}
# What a negated, past or hedged statement says once its negation or modal is taken out, so its names can
# still be typed.
NEGATION_WORDS = re.compile(r"\b(?:do|does|did)\s+not\b|\b(?:do|does|did)n['’]t\b|\bno longer\b|\bnot\b|\bnever\b|"
                            r"n['’]t\b|\bcannot\b|\b(?:might|could|should|may|must)\b|" + english.ENDED)
COORDINATION = re.compile(r"\s*,?\s+and\s+(?=[a-z])")
ATTRIBUTE_VALUE = r"\s+(?:is|was|are|were|has been|remains|stays)\s+(?:now\s+|currently\s+|still\s+|set to\s+)?(?P<value>.+)$"
POSSESSIVE_ATTRIBUTE = re.compile(r"['’]s?\s+(?P<attr>[a-z]+(?: [a-z]+)?)" + ATTRIBUTE_VALUE)
LEADING_ATTRIBUTE = re.compile(r"\bthe\s+(?P<attr>[a-z]+(?: [a-z]+)?)\s+(?:of|for)\s+$")
TRAILING_VALUE = re.compile(ATTRIBUTE_VALUE)
# "has priority level high": the attribute with the word that says which of its scales ("level") is one name.
HAS_ATTRIBUTE = re.compile(
    r"\s+(?:has|had)\s+(?:a\s+|an\s+)?(?P<attr>(?:" + "|".join(sorted(english.HAS_ATTRIBUTES)) + r")"
    r"(?:\s+(?:level|class|tier|code|type|score|rating|date))?)\s+(?:of\s+|set to\s+)?(?P<value>.+)$"
)
SPEAKER_ATTRIBUTE = re.compile(
    r"\s+(?P<attr>" + "|".join(sorted(english.SPEAKER_ATTRIBUTES, key=len, reverse=True)) + r")\s+(?:is|are)\s+(?P<value>.+)$",
    re.IGNORECASE,
)
# "I'm an assistant manager" (but not "a manager at X": that is an employer).
SPEAKER_ROLE = re.compile(
    r"(?:['’]m|\s+am)\s+(?:now\s+|currently\s+|still\s+|finally\s+)?(?:a|an)\s+"
    r"(?P<value>(?:[a-z-]+\s+){0,2}?(?:" + "|".join(sorted(english.JOB_NOUNS)) + r"))(?=\s*(?:$|[-–—.,;!?]))",
    re.IGNORECASE,
)
# "my dance crew": a group the speaker belongs to (not "my favourite band").
SPEAKER_GROUP = re.compile(r"\s+(?P<value>(?:(?!favou?rite\b)[a-z]+\s+)?(?:" + "|".join(sorted(english.GROUP_NOUNS)) + r"))\b",
                           re.IGNORECASE)
# "I started playing acoustic guitar", "I play the drums".
SPEAKER_PLAYS = re.compile(
    r"\s+(?:(?:have|had|just|also|still|now|often|really)\s+)*(?:(?:started|start|began|begin|love|like|enjoy|learned|"
    r"learnt|am learning)\s+(?:to\s+)?)?(?:playing|play|plays|played)\s+(?:the\s+|an?\s+)?"
    r"(?P<value>(?:[a-z]+\s+)?(?:" + "|".join(sorted(english.INSTRUMENTS)) + r"))\b", re.IGNORECASE)
# "I joined a nearby church", "I just joined a gym": a group the speaker belongs to.
SPEAKER_JOINED = re.compile(
    r"\s+(?:(?:just|recently|finally|also|have|'ve|’ve)\s+)*joined\s+(?:a|an|the|my|our)\s+(?:new\s+)?"
    r"(?P<value>(?:[a-z-]+\s+){0,3}?(?:" + "|".join(sorted(english.JOINED_GROUPS)) + r"))\b", re.IGNORECASE)
# "I went on a road trip to Oregon": a place the speaker visited.
SPEAKER_TRIP = re.compile(
    r"\s+(?:just\s+)?(?:went|got back|came back|returned)\s+(?:on|from)\s+(?:a|an|my|our)\s+(?:[a-z-]+\s+){0,2}"
    r"(?:trip|vacation|holiday|getaway)\s+to\s+(?P<value>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)")
# What the speaker's "I" states of them, read off the rest of the clause: one value each.
SPEAKER_STATEMENTS = [("HAS_ROLE", SPEAKER_ROLE), ("PLAYS", SPEAKER_PLAYS), ("MEMBER_OF", SPEAKER_JOINED),
                      ("VISITED", SPEAKER_TRIP)]
# "Our one-year-old is so cute, his name is Kyle": the speaker's child, named.
CHILD_NAMED = re.compile(r"\b(?:my|our)\s+(?:[a-z-]+\s+)?(?:son|daughter|kid|child|baby|boy|girl|[a-z]+-year-old)\b"
                         r"[^.!?]*?\b(?:his|her) name is\s+(?P<value>[A-Z][\w'’-]+)", re.IGNORECASE)
VALUE_END = re.compile(r",|\s+(?:and|but)\s+", re.IGNORECASE)
APPOSITIVE = re.compile(r"^\s*,[^,;]*,")
NAMED_CONFIDENCE, IMPLIED_CONFIDENCE = 0.8, 0.5
ATTRIBUTE_CONFIDENCE = 0.7


class RelationReader:
    """Read relations, facts about the speaker and attributes from the slots of each clause."""

    def _relate(self, slots: list[Slot], clause: list[Token], asserted: bool) -> None:
        clause_start, clause_end = clause[0].start, clause[-1].end
        for i, subject in enumerate(slots):
            for j in range(i + 1, len(slots)):
                obj = slots[j]
                if obj.kind == "pronoun" and self.text[obj.start:obj.end].lower() in NOMINATIVE:
                    continue
                between = subject.lead + self.text[subject.end:obj.start]
                stripped = APPOSITIVE.sub("", between)
                inner = subject.end + len(between) - len(stripped)
                blocking = [s for s in slots[i + 1:j] if inner <= s.start and not s.possessive]
                if blocking:
                    # "Zainab moved to Accra and joined Cobaltline": the clause's subject carries over "and".
                    tail = self.text[blocking[-1].end:obj.start]
                    carried = COORDINATION.match(tail)
                    if i > 0 or carried is None:
                        continue
                    stripped = " " + tail[carried.end():]
                self._match(subject, obj, stripped.lower(), self.text[clause_start:subject.start].lower(), asserted)
            rest = self.text[subject.end:clause_end].lower()
            later = slots[i + 1:]
            if not asserted:
                continue
            implied = IMPLICIT_EVENT.match(rest)
            if implied and not OWN_OBJECT.match(rest[implied.end():]) and not any("EVENT" in s.types() for s in later) \
                    and not NEGATION.search(rest):
                event = self._latest(subject.start, "EVENT")
                if event is not None:
                    self._emit(subject, "PARTICIPATED_IN", [event], IMPLIED_CONFIDENCE)
            if subject.kind == "plural" and MUTUAL_ACQUAINTANCE.match(rest) and not NEGATION.search(rest):
                first, second = subject.entities[:2]
                self._emit(Slot(0, 0, [first], "plural"), "KNOWS", [second], IMPLIED_CONFIDENCE)

    def _match(self, subject: Slot, obj: Slot, between: str, before: str, asserted: bool) -> None:
        """Emit the rule that fits with the fewest weakly typed names retyped (the first such), and retype them.

        A negated, past, hedged or questioned statement still types its names ("did not join X": X is an
        organisation) but states no relation.
        """
        between = re.sub(r"^['’]ve\b", " have", re.sub(r"^['’]m\b", " am", re.sub(r"^['’]re\b", " are", between)))
        asserted = asserted and not NEGATION.search(between)
        between = re.sub(r"\s+", " ", NEGATION_WORDS.sub(" ", between)) if between.strip() else between
        fitting = []
        for rule in RULES:
            source, target = (obj, subject) if rule.inverse else (subject, obj)
            if rule.before is not None and not rule.before.search(before):
                continue
            if not rule.between.fullmatch(between):
                continue
            retype = rule.retypes and rule.relation != "ALIAS_OF"
            if rule.relation == "ALIAS_OF" and not (source.kind == target.kind == "name"):
                continue
            source_changes, target_changes = _fit(source, rule.subjects, retype), _fit(target, rule.objects, retype)
            if source_changes is not None and target_changes is not None:
                fitting.append((len(source_changes) + len(target_changes), len(fitting), rule, source, target,
                                source_changes + target_changes))
        if not fitting:
            return
        _, _, rule, source, target, changes = min(fitting, key=lambda fit: fit[:2])
        self.tentative -= {m.start for slot in (source, target) for e in slot.entities for m in e.mentions}
        for entity, type_ in changes:
            entity.type, entity.cue = type_, RULE_CUE
        for slot, allowed in ((source, rule.subjects), (target, rule.objects)):
            if set(allowed) <= SOMEONE:  # "Odile joined X", "met Odile": whoever it is, someone
                for entity in slot.entities:
                    entity.cue = max(entity.cue, RULE_CUE)
        if rule.relation is not None and asserted:
            confidence = NAMED_CONFIDENCE if source.kind == target.kind == "name" else REFERENCE_CONFIDENCE
            self._emit(source, rule.relation, target.entities, confidence)

    def _attributes(self, slots: list[Slot], clause: list[Token]) -> None:
        """Record "X's status is degraded", "the priority of X is high" and "X has status blocked"."""
        clause_start, clause_end = clause[0].start, clause[-1].end
        child = CHILD_NAMED.search(self.text[clause_start:clause_end])
        if child is not None:
            self.speaker_attributes.append(("PARENT_OF", child.group("value"), clause_start + child.start()))
        for slot in slots:
            if slot.kind == "speaker" and self.text[slot.start:slot.end].lower() == "my":
                self._speaker_attribute(slot, slots, clause_end)
                group = SPEAKER_GROUP.match(self.text[slot.end:clause_end])
                if group is not None:
                    self.speaker_attributes.append(("MEMBER_OF", group.group("value").lower(), slot.start))
            if slot.kind == "speaker" and self.text[slot.start:slot.end].lower() == "i":
                for predicate, pattern in SPEAKER_STATEMENTS:
                    found = pattern.match(self.text[slot.end:clause_end])
                    if found is not None:
                        self.speaker_attributes.append((predicate, found.group("value"), slot.start))
            if slot.kind != "name" or len(slot.entities) != 1:
                continue
            after = self.text[slot.end:clause_end]
            found = POSSESSIVE_ATTRIBUTE.match(after) or HAS_ATTRIBUTE.match(after)
            attribute = found and found.group("attr")
            if found is None:
                leading = LEADING_ATTRIBUTE.search(self.text[clause_start:slot.start].lower())
                found = leading and TRAILING_VALUE.match(after)
                attribute = leading and leading.group("attr")
            if not found:
                continue
            value_start = slot.end + found.start("value")
            target = next((s for s in slots if s.start == value_start and len(s.entities) == 1), None)
            value = target.entities[0].name if target else found.group("value").strip(" .!,;:")
            if value and len(value.split()) <= 4 and value.lower().split()[-1] not in english.EVALUATIONS:
                predicate = english.ATTRIBUTE_RELATIONS.get(attribute, "HAS_" + attribute.upper().replace(" ", "_"))
                self.attributes.append((slot.entities[0], predicate, value, slot.start))

    def _speaker_attribute(self, slot: Slot, slots: list[Slot], clause_end: int) -> None:
        """Record "my name is Sam" as the speaker's HAS_NAME."""
        found = SPEAKER_ATTRIBUTE.match(self.text[slot.end:clause_end])
        if found is None:
            return
        value_start = slot.end + found.start("value")
        target = next((s for s in slots if s.start == value_start and len(s.entities) == 1), None)
        value = target.entities[0].name if target else VALUE_END.split(found.group("value"), maxsplit=1)[0].strip(" .!,;:")
        if value and len(value.split()) <= 4:
            self.speaker_attributes.append(("HAS_" + found.group("attr").upper().replace(" ", "_"), value, slot.start))

    def _emit(self, source: Slot, relation: str, targets: list[Entity], confidence: float) -> None:
        position = source.start
        for target in targets:
            if source.kind == "speaker":
                self.speaker_facts.append((relation, target, confidence, position))
                continue
            for entity in source.entities:
                if entity is not target:
                    self.relations.append((entity, relation, target, confidence, position))

    def _latest(self, before: int, type_: str) -> Entity | None:
        candidates = [(max(m.start for m in e.mentions if m.start < before), e) for e in self.entities
                      if e.type == type_ and any(m.start < before for m in e.mentions)]
        return max(candidates, key=lambda pair: pair[0])[1] if candidates else None


# The arguments a rule fills only with someone: a name there is a person's, however little its words say.
SOMEONE = {"PERSON", SPEAKER}


def _fit(slot: Slot, allowed: tuple, retype: bool) -> list[tuple[Entity, str]] | None:
    """Return the retyping that lets `slot` fill a rule's argument ([] when none is needed), or None."""
    if slot.types() <= set(allowed):
        return []
    if not retype or slot.kind != "name" or any(e.cue > WEAK_CUE for e in slot.entities):
        return None
    wanted = next(t for t in allowed if t != SPEAKER)
    return [(e, wanted) for e in slot.entities]

