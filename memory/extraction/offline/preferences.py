"""Preferences: the ways a person states a liking, a dislike or a standing instruction."""

import re

from memory.extraction import english
from memory.extraction.results import ExtractedPreference
from memory.extraction.rules import PREFERENCE_FORMS, REFERENCE_TOPIC, REQUEST_TOPIC, TOPIC_END, preference_topic

PREFERENCE_CONFIDENCE = 0.7


def stated_preferences(text: str) -> list[ExtractedPreference]:
    """Return the preferences `text` states, in the order it states them."""
    found = []
    for form in PREFERENCE_FORMS:
        for match in form.pattern.finditer(text):
            said = match.group("topic") if "topic" in form.pattern.groupindex else None
            topic = (said or TOPIC_END.split(text[match.end():], maxsplit=1)[0]).strip(" ,")
            if not topic or REFERENCE_TOPIC.match(topic) or REQUEST_TOPIC.search(topic):
                continue
            groups = {k: v.strip() for k, v in match.groupdict().items() if v and k != "topic"}
            words = set(re.findall(r"[a-z]+", f"{groups.get('about', '')} {topic}".lower()))
            found.append((match.start(), ExtractedPreference(
                category=next((c for c, cues in english.PREFERENCE_CATEGORIES.items() if cues & words), "general"),
                preference=form.statement.format(topic=topic, **groups), confidence=PREFERENCE_CONFIDENCE,
                topic=preference_topic(topic), polarity=form.polarity,
            )))
    return [preference for _, preference in sorted(found, key=lambda pair: pair[0])]
