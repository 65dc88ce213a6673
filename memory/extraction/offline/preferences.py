"""Preferences: the ways a person states a liking, a dislike or a standing instruction."""

import re

from memory import trust
from memory.extraction import english
from memory.extraction.results import ExtractedPreference
from memory.extraction.rules import (INTERNAL_REFERENCE, PREFERENCE_FORMS, REFERENCE_TOPIC, REQUEST_TOPIC, TOPIC_END,
                                     preference_topic)

PREFERENCE_CONFIDENCE = 0.7
# A topic about the listener ("your commitment", "show you a photo"), one that holds its own speaker ("I'm
# passionate about dancing and it"), a topic cut short ("things that") or a way of speaking ("to say") is no liking.
NOT_A_TOPIC = re.compile(r"\b(?:you|your|yours|yourself|i|i['’]m|we|we['’]re)\b|"
                         r"\b(?:and|or|but|that|which|who|to|of|with|the|a|an|so|as|for|because|they|he|she)$|"
                         r"^(?:helps?|keeps?|makes?|gives?|is|are|was|were)\b|"
                         # a reference says nothing alone: "making him happy", "the taste of these", "their work"
                         # or "this nearby trail", "the freedom and connection it brings": it does not read alone
                         r"\b(?:it|them|him|these|those|this|here|there)\b|\b(?:that)$|"
                         r"\b(?:that)\s+(?:with|to|for|in|on|at|from|of)\b|"
                         r"^(?:their|his|her|its)\b|"
                         r"^to\s+(?:say|tell|thank|share|show|ask|hear|know|let|add|mention|remind|admit|point)\b",
                         re.IGNORECASE)
# A liking of something in particular ("all the yellow leaves", "the colors") said of what was just shown or
# how it looks is a compliment, not a lasting preference.
PARTICULAR = re.compile(r"^(?:all\s+)?(?:the|those|these|that|this)\s", re.IGNORECASE)
SHOWN = re.compile(r"\b(?:pics?|pictures?|photos?|photographs?|snaps?|looks?|looked|looking so)\b", re.IGNORECASE)


def stated_preferences(text: str, *, before: str = "") -> list[ExtractedPreference]:
    """Return the preferences `text` states, in the order it states them; `before` is the turn it answers.

    A sentence that sets a rule for how the assistant serves the person from now on is their standing instruction,
    kept in their words, and no other preference.
    """
    rules = trust.standing_instructions(text)
    found = [(start, ExtractedPreference(category=trust.INSTRUCTION, preference=text[start:end].strip(),
                                         confidence=PREFERENCE_CONFIDENCE, topic=preference_topic(text[start:end]),
                                         polarity="positive")) for start, end in rules]
    for form in PREFERENCE_FORMS:
        for match in form.pattern.finditer(text):
            if any(start <= match.start() < end for start, end in rules):
                continue
            said = match.group("topic") if "topic" in form.pattern.groupindex else None
            topic = (said or TOPIC_END.split(text[match.end():], maxsplit=1)[0]).strip(" ,")
            if not topic or REFERENCE_TOPIC.match(topic) or REQUEST_TOPIC.search(topic) \
                    or NOT_A_TOPIC.search(INTERNAL_REFERENCE.sub("and", topic)):
                continue
            sentence = _sentence_at(text, match.start())
            if sentence.endswith("?") or (PARTICULAR.match(topic) and (SHOWN.search(sentence) or SHOWN.search(before))):
                continue  # asked ("Love sure does bring us joy, huh?"), or a compliment on what was shown
            groups = {k: v.strip() for k, v in match.groupdict().items() if v and k != "topic"}
            words = set(re.findall(r"[a-z]+", f"{groups.get('about', '')} {topic}".lower()))
            found.append((match.start(), ExtractedPreference(
                category=next((c for c, cues in english.PREFERENCE_CATEGORIES.items() if cues & words), "general"),
                preference=form.statement.format(topic=topic, **groups), confidence=PREFERENCE_CONFIDENCE,
                topic=preference_topic(topic), polarity=form.polarity,
            )))
    return [preference for _, preference in sorted(found, key=lambda pair: pair[0])]


def _sentence_at(text: str, position: int) -> str:
    """Return the sentence holding `position`, with the mark that ends it."""
    start = max(text.rfind(end, 0, position) for end in ".!?\n") + 1
    ends = [i for i in (text.find(end, position) for end in ".!?\n") if i >= 0]
    return text[start:min(ends) + 1 if ends else len(text)].strip()
