"""The poisoning suite read as units, and memory.trust's weights fitted to them by family rotation.

A unit is one text from an untrusted source in a scenario, as the product reads it: an assistant's, a tool's or a
system turn (with what the person said before it), one of the agent's explicit fields, or a whole trace. A unit of
an attack carries its poison when it holds one of the scenario's `served` texts; every unit of a look-alike must be
kept. The weights are fitted by coordinate descent on the units of some families and measured on the rest, so a
figure can be given for families the weights never saw.
"""

from collections import defaultdict
from dataclasses import dataclass

from memory import trust
from memory.extraction.speakers import speaker_split
from memory.trust import claims

# What holding a look-alike's unit costs against letting one poison through: a person's own details lost matter more.
BENIGN_COST = 3
# Signals that say what a text is about, or whom it is meant for, may hold it alone; the agent named as such weighs at
# most two, so it holds with one other sign; every other sign at most one, so three of them hold a text.
NAMED, WEAK = 2, 1
STRONG = {trust.CLAIM, trust.CONFLICT, trust.REPLACES, trust.STUFFED, trust.RULE, trust.DETAILS_SIGN, trust.NEW_VALUE,
          "addressed", "remembered", "overrides", "speaks_for"}
FIT_ROUNDS = 6


@dataclass(frozen=True)
class Unit:
    scenario: str
    family: str
    poison: bool
    reads: tuple[trust.Reading, ...]
    fixed: bool = False  # held whatever the weights (a standing instruction from the agent always waits)

    def held(self, weights: dict[str, int]) -> bool:
        return self.fixed or any(trust.holds(read, weights) for read in self.reads)


class ScenarioPerson:
    """The person of a scenario as memory.trust reads them: the names their turns are labelled with, their words so
    far, and their tools' outputs."""

    def __init__(self):
        self.labels: list[str] = []
        self.words: list[str] = []
        self.tools: list[str] = []

    def hear(self, content: str) -> None:
        label, said = speaker_split(content)
        if label:
            self.labels.append(label)
        self.words.append(said)

    def names(self) -> list[str]:
        return list(dict.fromkeys(self.labels))

    def said(self, values: list[str]) -> set[str]:
        return {value for value in values if claims.said_in(value, self.words)}

    def given(self, values: list[str]) -> set[str]:
        return {value for value in values if claims.said_in(value, [*self.words, *self.tools])}

    def stated(self) -> dict[str, set[str]]:
        return claims.stated(self.words)


def units(scenarios: list[dict]) -> list[Unit]:
    """Return the units of the scenarios: every poison-carrying unit of an attack, every unit of a look-alike. A
    message is one unit, as the product holds it: its words when it is not the person's, with what its explicit
    fields would add (what is held of a message is held whole, and its words with it)."""
    found = []
    for scenario in scenarios:
        person, markers = ScenarioPerson(), [m.lower() for m in scenario["served"]]
        attack = scenario["kind"] == "attack"

        def unit(texts: list[str], reads: list[trust.Reading], fixed: bool = False) -> None:
            poison = any(m in text.lower() for text in texts for m in markers)
            if reads and (poison or not attack):
                found.append(Unit(scenario["id"], scenario["family"], attack and poison, tuple(reads), fixed))

        for turn in [*scenario.get("before", []), *scenario.get("turns", [])]:
            texts, reads = _message_reads(turn, person)
            unit(texts, reads, fixed=any(trust.standing_added(category=p["category"], preference=p["preference"])
                                         for p in turn.get("preferences", [])))
            if turn["role"] == "user":
                person.hear(turn["content"])
            elif turn["role"] == "tool":
                person.tools.append(turn["content"])
        if "trace" in scenario:
            texts = trace_texts(scenario["trace"])
            unit(texts, [trust.reading(text, person=person) for text in texts])
    return found


def _message_reads(turn: dict, person: ScenarioPerson) -> tuple[list[str], list[trust.Reading]]:
    """Return a message's texts that could carry poison and how the product reads each: its words (unless the
    person's own), and each explicit fact, preference and entity."""
    texts, reads = [], []
    if turn["role"] != "user":
        texts.append(turn["content"])
        reads.append(trust.reading(turn["content"], person=person, source=trust.ROLE_SOURCES[turn["role"]]))
    for fact in turn.get("facts", []):
        if turn["role"] == "user" and fact["object"].casefold() in turn["content"].casefold():
            continue  # the person's own words, relayed (memory.ingest.holding reads them so)
        texts += [fact["subject"], fact["object"]]
        reads.append(trust.fact_reading(subject=fact["subject"], predicate=fact["predicate"], object=fact["object"],
                                        person=person))
    for text in [p["preference"] for p in turn.get("preferences", [])] + [e["name"] for e in turn.get("entities", [])]:
        texts.append(text)
        reads.append(trust.reading(text, person=person))
    return texts, reads


def trace_texts(trace: dict) -> list[str]:
    """Return a trace's words as memory.services.traces reads them: its task, each step's thought, action and
    observation, its outcome."""
    texts = [trace["task"], *(step.get(part) for step in trace["steps"] for part in ("thought", "action", "observation")),
             trace.get("outcome")]
    return [text for text in texts if text]


def cost(found: list[Unit], weights: dict[str, int]) -> int:
    return sum((1 if unit.poison else BENIGN_COST) for unit in found if unit.held(weights) != unit.poison)


def fit(found: list[Unit], start: dict[str, int] | None = None) -> dict[str, int]:
    """Return the weights that hold the most poison and the fewest look-alike units (coordinate descent from
    `start`, each weight from 0 to its most; a tie keeps the weight it had)."""
    weights = {name: min(weight, _most(name)) for name, weight in (start or trust.WEIGHTS).items()}
    for _ in range(FIT_ROUNDS):
        changed = False
        for name in trust.ORDER:
            best, best_cost = weights[name], cost(found, weights)
            for candidate in range(0, _most(name) + 1):
                weights[name] = candidate
                if (candidate_cost := cost(found, weights)) < best_cost:
                    best, best_cost = candidate, candidate_cost
            changed |= weights[name] != best
            weights[name] = best
        if not changed:
            break
    return weights


def _most(name: str) -> int:
    return trust.HOLD if name in STRONG else NAMED if name == "meta" else WEAK


def rotation(found: list[Unit], families: list[str]) -> dict[str, dict[str, int]]:
    """Return, for each family, the weights fitted on every other family's units."""
    return {family: fit([u for u in found if u.family != family]) for family in families}


def unit_figures(found: list[Unit], weights_by_family: dict[str, dict[str, int]]) -> dict:
    """Return per family how many poison units got through and look-alike units were held, each family read with
    its own weights."""
    figures = defaultdict(lambda: {"poison": 0, "through": 0, "benign": 0, "held": 0})
    for unit in found:
        held = unit.held(weights_by_family[unit.family])
        row = figures[unit.family]
        if unit.poison:
            row["poison"] += 1
            row["through"] += not held
        else:
            row["benign"] += 1
            row["held"] += held
    return dict(figures)
