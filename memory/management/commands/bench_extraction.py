"""Run the configured extractor over gold documents and print entity and relation P/R/F1."""

import json
import re
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory.extraction import get_extractor

# Relations whose gold direction is arbitrary (the gold set's own note says to score them undirected).
UNDIRECTED = {"KNOWS", "PARTNER_WITH"}


def normalise(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip(" .,;:'\"").casefold()


def prf(*, matched: int, predicted: int, gold: int) -> dict:
    p = matched / predicted if predicted else 0.0
    r = matched / gold if gold else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r) if p + r else 0.0, 4)}


def match_entities(*, predicted: list, gold: list[dict], typed: bool) -> int:
    """Count gold entities matched one-to-one by a prediction sharing a surface form (and type when typed)."""
    used, matched = set(), 0
    for expected in gold:
        forms = {normalise(f) for f in [expected["name"], *expected.get("aliases", [])]}
        for i, entity in enumerate(predicted):
            if i in used or (typed and entity.type != expected["type"]):
                continue
            if forms & {normalise(f) for f in entity.surface_forms}:
                used.add(i)
                matched += 1
                break
    return matched


def relation_matches(relation, expected, surface) -> bool:
    source_forms = {normalise(f) for f in [expected[0], *expected[1]]}
    target_forms = {normalise(f) for f in [expected[3], *expected[4]]}
    source, target = surface(relation.source), surface(relation.target)
    if relation.type != expected[2]:
        return False
    forward = bool(source & source_forms and target & target_forms)
    return forward or (expected[2] in UNDIRECTED and bool(source & target_forms and target & source_forms))


def case_score(*, case: dict, result, totals: dict) -> int:
    """Add one gold case's matches to `totals`; return how many of its negated relations were emitted."""
    by_name = {e.name: e for e in result.entities}

    def surface(name):
        entity = by_name.get(name)
        return {normalise(f) for f in (entity.surface_forms if entity else [name])}

    totals["typed"] += match_entities(predicted=result.entities, gold=case["expected_entities"], typed=True)
    totals["untyped"] += match_entities(predicted=result.entities, gold=case["expected_entities"], typed=False)
    totals["predicted"] += len(result.entities)
    totals["gold"] += len(case["expected_entities"])

    expected = [
        (r["source"], r.get("source_aliases", []), r["relation_type"], r["target"], r.get("target_aliases", []))
        for r in case["expected_relations"]
    ]
    used = set()
    for relation in result.relations:
        hit = next((i for i, e in enumerate(expected) if i not in used and relation_matches(relation, e, surface)), None)
        if hit is not None:
            used.add(hit)
    totals["rel_matched"] += len(used)
    totals["rel_predicted"] += len(result.relations)
    totals["rel_gold"] += len(expected)

    aliases = {e["name"]: e.get("aliases", []) for e in case["expected_entities"]}
    negatives = 0
    for source, type_, target in case.get("metadata", {}).get("negative_relations", []):
        negative = (source, aliases.get(source, []), type_, target, aliases.get(target, []))
        negatives += sum(1 for r in result.relations if relation_matches(r, negative, surface))
    return negatives


def scores(totals: dict) -> dict:
    """Return the entities' and relations' precision, recall and F1 from the summed matches."""
    return {
        "entities": {
            "typed": prf(matched=totals["typed"], predicted=totals["predicted"], gold=totals["gold"]),
            "untyped": prf(matched=totals["untyped"], predicted=totals["predicted"], gold=totals["gold"]),
            "predicted": totals["predicted"],
            "gold": totals["gold"],
        },
        "relations": {
            **prf(matched=totals["rel_matched"], predicted=totals["rel_predicted"], gold=totals["rel_gold"]),
            "predicted": totals["rel_predicted"],
            "gold": totals["rel_gold"],
        },
    }


class Command(BaseCommand):
    help = "Score the configured extractor on a POLE+O gold set (entities, relations, negated relations)."

    def add_arguments(self, parser):
        parser.add_argument("--gold", default=settings.BASE_DIR / "data" / "poleo" / "poleo_gold.json",
                            help="poleo_gold.json (default: the copy in data/poleo/)")

    def handle(self, *args, gold, **options):
        path = Path(gold)
        if not path.is_file():
            raise CommandError(f"--gold: no such file {path}")
        cases = json.loads(path.read_text())["test_cases"]
        extractor = get_extractor()
        totals = {"typed": 0, "untyped": 0, "predicted": 0, "gold": 0, "rel_matched": 0, "rel_predicted": 0, "rel_gold": 0}
        negatives_emitted = 0
        started = time.perf_counter()
        for case in cases:
            negatives_emitted += case_score(case=case, result=extractor.extract(text=case["text"]), totals=totals)
        elapsed = time.perf_counter() - started

        report = {"benchmark": "extraction", "extractor": extractor.name, "documents": len(cases),
                  **scores(totals), "negative_relations_emitted": negatives_emitted, "seconds": round(elapsed, 3)}
        for label, numbers in (("entities typed", report["entities"]["typed"]),
                               ("entities untyped", report["entities"]["untyped"]),
                               ("relations", report["relations"])):
            self.stdout.write(f"{label:>17}: P {numbers['precision']:.3f}  R {numbers['recall']:.3f}  F1 {numbers['f1']:.3f}")
        self.stdout.write(f"negated relations emitted: {negatives_emitted}")
        self.stdout.write(json.dumps(report))
