"""The offline extractor: English cue words and clause patterns, no model and no download.

Names are runs of capitalised words (a title in title case keeps its small words and its subtitle: "No Time
to Die", "Spider-Man: No Way Home"); their type comes from cue words (titles, "Corp", "Summit",
"Street", a following "workshop" or "laptop", a preceding "in", a known place, quotes). Greetings,
interjections and words capitalised only because they open a sentence are no names, and a name only
spoken to ("Thanks, Mel!") is no entity, nor is an unnamed thing of a turn where someone speaks of themself
or to the listener ("my car"). Later mentions of a name (its first word, its acronym, "the
trust", "she") are tied to the entity they refer to, and relations are read from the text between
two mentions of one clause, never across a negation. The speaker's "I" is the person only in the
person's own turns. A turn sent as "Name: text" is read without its label: the label says who speaks, and
a name of someone speaking in the conversation (or its short form, "Mel" of "Melanie") is no entity.
"""

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from memory.extraction.offline.document import Document
from memory.extraction.results import Extraction, Turn
from memory.extraction.speakers import labels_strip

# The assistant asking where the person is: "In what city?", "Where are you located?" (not "What city is that theater in?").
WHERE_QUESTION = re.compile(r"(?:^|[.!?]\s+)(?:in\s+)?(?:what|which)\s+(?:city|town|area|state|neighbou?rhood)(?:\s+are\s+you"
                            r"(?:\s+in)?)?\?\s*$|\bwhere\s+are\s+you(?:\s+located|\s+based|\s+now)?\?\s*$", re.IGNORECASE)
PLACE_ANSWER_WORDS = 6


class OfflineExtractor:
    """Extract POLE+O entities, relations, facts and preferences with English rules only."""

    name = "offline"

    def extract(
        self, *, text: str, role: str = "user", context: Sequence[Turn] = (), reference_date: date | None = None,
    ) -> Extraction:
        said, earlier = labels_strip(text, [turn.content for turn in context])
        full = "\n\n".join([*(turn.text for turn in earlier), said.text])
        offset = len(full) - len(said.text)
        participants = {turn.speaker for turn in [said, *earlier] if turn.speaker}
        document = Document(full, reference_date=reference_date, participants=participants)
        document.read()
        asked_where = bool(context) and context[-1].role == "assistant" and WHERE_QUESTION.search(earlier[-1].text) is not None
        if role == "user" and asked_where and len(said.text.split()) <= PLACE_ANSWER_WORDS:
            document.place_answer(offset)
        extraction = document.result(offset=offset, extractor=self.name, by_person=role == "user")
        for entity in extraction.entities:
            entity.mentions = [replace(m, start=m.start + said.label_length, end=m.end + said.label_length)
                               for m in entity.mentions]
        return extraction

