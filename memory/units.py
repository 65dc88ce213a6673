"""A message's sentences: the units a context hands the model instead of the whole turn.

The extraction worker splits what a message says (its speaker's label left out) into sentences and embeds each
beside the message, in the same call; the message keeps their character spans (`sentence_spans`, pairs of start and
end in its `content`) and their vectors' copies in signed bytes, one after the other (`sentence_embeddings_int8`).
A message of one sentence keeps its one span and no other vector: it is its own unit. A message embedded before
messages kept their sentences gets them when the worker next reads it (a re-extraction), so that what it holds does
not depend on when it was first read. The units are the message's own properties, so whatever happens to the message
(forgotten, withheld, held, past retention, erased) happens to them.
"""

import re
from typing import NamedTuple

import numpy as np

from memory.extraction.english import TITLES

# A sentence ends at a run of ".", "!", "?" or "…" (with the quotes or brackets that close it) before a blank or the
# end, and at a line break: a decimal ("3.5") or a web address ("example.com") ends none.
SENTENCE_END = re.compile(r"[.!?…]+[\"'’”)\]]*(?=\s|$)|\n")
# A word a full stop follows without ending the sentence: a title ("Dr."), an initial ("J."), a common abbreviation
# ("etc." ends none either: a few sentences run on).
ABBREVIATED = re.compile(r"(?:^|\s)(?:(?i:" + "|".join(sorted(TITLES)) + r"|e\.g|i\.e|vs|etc)|[A-HJ-Z])$")
# What a sentence needs to be one of its own: a letter or a digit ("!!" or ":)" stays with the sentence before it).
SAID = re.compile(r"[^\W_]")


class Unit(NamedTuple):
    """One sentence of a message: its index, and its span in the message's content."""

    index: int
    start: int
    end: int


def sentence_spans(text: str, *, offset: int = 0) -> list[tuple[int, int]]:
    """Return the (start, end) of each sentence of `text`, blanks around it left out, shifted by `offset` (where the
    text starts in the message's content)."""
    spans, start = [], 0
    for end in SENTENCE_END.finditer(text):
        if end.group() == "." and ABBREVIATED.search(text, 0, end.start()):
            continue
        spans.append((start, end.end()))
        start = end.end()
    spans.append((start, len(text)))
    kept: list[tuple[int, int]] = []
    for start, end in spans:
        piece = text[start:end]
        if not piece.strip():
            continue
        start, end = start + len(piece) - len(piece.lstrip()), end - len(piece) + len(piece.rstrip())
        if kept and not SAID.search(text, start, end):
            kept[-1] = (kept[-1][0], end)
        else:
            kept.append((start, end))
    return [(start + offset, end + offset) for start, end in kept]


def units_stored(spans: list[tuple[int, int]], vectors) -> dict:
    """Return the message properties that keep its sentences: their spans always (one pair for a message of one
    sentence, none for one that says nothing), their vectors only when there are several (a message of one sentence
    is its own unit, read by its own vector)."""
    if len(spans) < 2:
        return {"sentence_spans": [bound for span in spans for bound in span], "sentence_embeddings_int8": None}
    from memory.embeddings import int8_copy

    return {"sentence_spans": [bound for span in spans for bound in span],
            "sentence_embeddings_int8": b"".join(int8_copy(vector) for vector in vectors)}


def units_similarity(*, vectors: list[bytes], embedding: np.ndarray) -> np.ndarray:
    """Return the similarity to `embedding` of every sentence stored in `vectors` (messages' sentence vectors, one
    after the other), on Neo4j's (1 + cosine) / 2 scale, in one product."""
    copies = np.frombuffer(b"".join(vectors), dtype=np.int8).reshape(-1, embedding.shape[0]).astype(np.float32)
    return (1 + copies @ embedding / np.clip(np.linalg.norm(copies, axis=1), 1e-12, None)) / 2
