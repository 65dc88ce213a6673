"""What an extractor returns: plain dataclasses, independent of the graph and of any model."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

# The entity types and polarities an extractor may return; memory.graph stores these and no others.
ENTITY_TYPES = ("PERSON", "ORGANIZATION", "LOCATION", "EVENT", "OBJECT")
# A name nothing types (its words, its sentence, a published list, a pretrained model): kept, and said to be of no
# known kind rather than given a guessed one.
UNTYPED = "UNTYPED"
POLARITIES = ("positive", "negative")


@dataclass(frozen=True)
class Turn:
    """One earlier message of the conversation: who said it (user, assistant, system or tool) and what."""

    role: str
    content: str


@dataclass(frozen=True)
class ExtractedMention:
    text: str
    start: int
    end: int
    confidence: float


@dataclass
class ExtractedEntity:
    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    mentions: list[ExtractedMention] = field(default_factory=list)
    confidence: float = 1.0

    @property
    def surface_forms(self) -> list[str]:
        return [self.name, *self.aliases]


@dataclass(frozen=True)
class ExtractedRelation:
    source: str
    type: str
    target: str
    confidence: float
    valid_from: date | None = None
    evidence: str = ""


@dataclass(frozen=True)
class ExtractedFact:
    subject: str
    predicate: str
    object: str
    cardinality: str
    confidence: float
    valid_from: date | None = None


@dataclass(frozen=True)
class ExtractedPreference:
    """A liking, dislike or standing instruction of the person.

    `topic` is what it is about, normalised ("curry for lunch"); `polarity` is "positive" or "negative".
    """

    category: str
    preference: str
    confidence: float
    topic: str
    polarity: str


@dataclass
class Extraction:
    entities: list[ExtractedEntity] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)
    facts: list[ExtractedFact] = field(default_factory=list)
    preferences: list[ExtractedPreference] = field(default_factory=list)
    extractor: str = ""


class Extractor(Protocol):
    name: str

    def extract(
        self, *, text: str, role: str = "user", context: Sequence[Turn] = (), reference_date: date | None = None,
    ) -> Extraction:
        """Return what `text`, said by `role`, states.

        `context` are the turns before it, oldest first: they only help resolve references. Facts and
        preferences about the person come only from what the person (role "user") says. Relative
        dates resolve against `reference_date`, the message's own day.
        """
