"""Score whether two entities of one user are the same, and cluster them by band.

Strong evidence (same normalised name, a shared alias, an initialism, a short form, a name the text
itself equates, a "the <noun>" that names the other) is scored by rule; otherwise a blend of RapidFuzz
and embedding similarity decides. Entities of different types never merge.
"""

import re
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from rapidfuzz import fuzz

from memory.embeddings import get_embedder
from memory.extraction.names import initials, name_core, name_tokens, singular

SHORT_FORM = {"PERSON": 0.92, "ORGANIZATION": 0.92, "EVENT": 0.8, "LOCATION": 0.8, "OBJECT": 0.8}
SIGNED_NAME = 0.85
# Words between two names that say they are one. A bare "is" does only after a name one signs or writes as ("who signs
# as J. Marchetti is Giulia Marchetti"): "Toby is German Shepherd" says what Toby is.
EQUATED = r"\s*(?:,\s*)?(?:also known as|aka|a\.k\.a\.|known as|signs as|writes as|writing as|,\s*or|\()\s*(?:the\s+)?"
SIGNED_AS = r"\b(?:signs?|signed|signing|writes?|wrote|writing|goes|went|known|performs?|posts?)\s+(?:by|as|under)\s+"
NOMINAL = re.compile(r"^(?:the|this|that)\s+([a-z]+)$", re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class Candidate:
    """One entity as resolution sees it; `context` is text it was mentioned in."""

    key: str
    name: str
    type: str
    aliases: tuple[str, ...] = ()
    context: str = ""
    embedding: np.ndarray | None = field(default=None, repr=False)

    @property
    def forms(self) -> list[str]:
        return [self.name, *self.aliases]


@dataclass(frozen=True)
class PairScore:
    left: str
    right: str
    type_compatible: bool
    exact: float
    alias: float
    initialism: float
    short_form: float
    signed_name: float
    equated: float
    nominal: float
    fuzzy: float
    embedding: float
    combined: float
    band: str

    def evidence(self) -> dict:
        """Return the scores as a JSON-ready dict (the SAME_AS `scores` property)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("left", "right")}


def band_for(*, combined: float) -> str:
    """Return "auto", "review" or "separate" for a combined score, by the configured thresholds."""
    if combined >= settings.RESOLUTION_AUTO_THRESHOLD:
        return "auto"
    if combined >= settings.RESOLUTION_REVIEW_THRESHOLD:
        return "review"
    return "separate"


def score_pair(*, left: Candidate, right: Candidate, embedding_similarity: float) -> PairScore:
    """Return every signal, the combined score and the band for one pair."""
    compatible = left.type == right.type
    fuzzy = fuzz.token_sort_ratio(name_core(left.name), name_core(right.name)) / 100.0
    signals = {
        "exact": float(name_core(left.name) == name_core(right.name)),
        "alias": float(bool({name_core(f) for f in left.forms} & {name_core(f) for f in right.forms})),
        "initialism": 0.95 * float(_is_initialism_of(left, right) or _is_initialism_of(right, left)),
        "short_form": SHORT_FORM.get(left.type, 0.8) * float(_is_short_form(left, right)),
        "signed_name": SIGNED_NAME * float(_is_signed_name(left, right) or _is_signed_name(right, left)),
        "equated": float(_equated(left, right)),
        "nominal": 0.9 * float(_names_by_noun(left, right) or _names_by_noun(right, left)),
    }
    blended = 0.5 * fuzzy + 0.5 * max(embedding_similarity, 0.0)
    combined = round(max(*signals.values(), blended), 4) if compatible else 0.0
    return PairScore(
        left=left.key, right=right.key, type_compatible=compatible, **signals, fuzzy=round(fuzzy, 4),
        embedding=round(float(embedding_similarity), 4), combined=combined, band=band_for(combined=combined),
    )


def score_pairs(*, candidates: list[Candidate], against: list[Candidate] | None = None) -> list[PairScore]:
    """Score each candidate against each of `against`, or every pair among `candidates` when it is None.

    Embeddings missing from candidates are computed in one batch.
    """
    others = candidates if against is None else against
    everyone = list({id(c): c for c in [*candidates, *others]}.values())
    vectors = _embeddings(everyone)
    scores = []
    for i, left in enumerate(candidates):
        for j, right in enumerate(others):
            if (against is None and j <= i) or left.key == right.key:
                continue
            similarity = float(vectors[id(left)] @ vectors[id(right)])
            scores.append(score_pair(left=left, right=right, embedding_similarity=similarity))
    return scores


def cluster(*, keys: list[str], scores: list[PairScore], bands: tuple[str, ...] = ("auto",)) -> list[set[str]]:
    """Return groups of keys joined (transitively) by pairs whose band is in `bands`."""
    parent = {key: key for key in keys}

    def root(key):
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for score in scores:
        if score.band in bands:
            parent[root(score.left)] = root(score.right)
    groups: dict[str, set[str]] = {}
    for key in keys:
        groups.setdefault(root(key), set()).add(key)
    return list(groups.values())


def _embeddings(candidates: list[Candidate]) -> dict[int, np.ndarray]:
    missing = [c for c in candidates if c.embedding is None]
    computed = get_embedder().embed([c.name for c in missing]) if missing else []
    vectors = {id(c): v for c, v in zip(missing, computed)}
    for c in candidates:
        if c.embedding is not None:
            vector = np.asarray(c.embedding, dtype=np.float32)
            vectors[id(c)] = vector / max(float(np.linalg.norm(vector)), 1e-12)
    return vectors


def _is_initialism_of(short: Candidate, full: Candidate) -> bool:
    letters = short.name.replace(".", "").replace(" ", "")
    if not (short.name.isupper() and 2 <= len(letters) <= 6):
        return False
    return any(len(name_tokens(form)) > 1 and initials(form) == letters.lower() for form in full.forms)


def _is_short_form(a: Candidate, b: Candidate) -> bool:
    """Return whether one name is the leading words of the other ("Harbour Freight" of "Harbour Freight Union")."""
    for x in a.forms:
        for y in b.forms:
            shorter, longer = sorted((name_core(x).split(), name_core(y).split()), key=len)
            if shorter and len(shorter) < len(longer) and longer[: len(shorter)] == shorter and len(shorter[0]) > 2:
                return True
    return False


def _is_signed_name(signed: Candidate, full: Candidate) -> bool:
    """Return whether `signed` is an initial and the surname of `full` ("J. Marchetti", "Julia Marchetti")."""
    short, long = signed.name.split(), full.name.split()
    if len(short) != len(long) or len(short) < 2 or not re.fullmatch(r"[A-Z]\.?", short[0]):
        return False
    return long[0][0] == short[0][0] and [w.lower() for w in short[1:]] == [w.lower() for w in long[1:]]


def _equated(a: Candidate, b: Candidate) -> bool:
    """Return whether the text either was mentioned in states that the two names are one ("X is Y")."""
    for context in {a.context, b.context} - {""}:
        for x in a.forms:
            for y in b.forms:
                for first, second in ((x, y), (y, x)):
                    pattern = rf"(?<![\w]){re.escape(first)}{EQUATED}{re.escape(second)}(?![\w'’])"
                    signed = rf"{SIGNED_AS}{re.escape(first)}\s+(?:is|was)\s+{re.escape(second)}(?![\w'’])"
                    if re.search(pattern, context, re.IGNORECASE) or re.search(signed, context, re.IGNORECASE):
                        return True
    return False


def _names_by_noun(nominal: Candidate, named: Candidate) -> bool:
    """Return whether "the <noun>" refers to `named`: its head noun, and `named` in the nominal's text."""
    match = NOMINAL.match(nominal.name.strip())
    if not match or not nominal.context:
        return False
    noun = singular(match.group(1))
    heads = {singular(name_tokens(f)[-1]) for f in named.forms if name_tokens(f)}
    return noun in heads and any(f.lower() in nominal.context.lower() for f in named.forms)
