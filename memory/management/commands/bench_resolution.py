"""Cluster the gold mentions with the resolver and print B-cubed precision, recall and F1."""

import json
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory.resolution import Candidate, cluster, score_pairs


def b_cubed(*, predicted: list[set[str]], gold: dict[str, str]) -> dict:
    """Return B-cubed precision, recall and F1 of predicted clusters against gold cluster labels."""
    cluster_of = {key: group for group in predicted for key in group}
    precision = recall = 0.0
    for key, label in gold.items():
        group = cluster_of[key]
        correct = sum(1 for other in group if gold[other] == label)
        precision += correct / len(group)
        recall += correct / sum(1 for other in gold.values() if other == label)
    p, r = precision / len(gold), recall / len(gold)
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r) if p + r else 0.0, 4)}


class Command(BaseCommand):
    help = "Score entity resolution on a gold set of mentions and clusters (B-cubed)."

    def add_arguments(self, parser):
        parser.add_argument("--gold", default=settings.BASE_DIR / "data" / "poleo" / "poleo_resolution_gold.json",
                            help="poleo_resolution_gold.json (default: the copy in data/poleo/)")
        parser.add_argument("--documents", help="the gold documents (default: poleo_gold.json beside --gold)")

    def handle(self, *args, gold, documents, **options):
        gold_path = Path(gold)
        if not gold_path.is_file():
            raise CommandError(f"--gold: no such file {gold_path}")
        data = json.loads(gold_path.read_text())
        documents_path = Path(documents) if documents else gold_path.with_name("poleo_gold.json")
        texts = {case["id"]: case["text"] for case in json.loads(documents_path.read_text())["test_cases"]}
        candidates = [
            Candidate(key=m["id"], name=m["text"], type=m["type"], context=texts.get(m["doc"], ""))
            for m in data["mentions"]
        ]
        started = time.perf_counter()
        scores = score_pairs(candidates=candidates)
        elapsed = time.perf_counter() - started
        keys = [c.key for c in candidates]
        result = {
            "benchmark": "resolution",
            "mentions": len(keys),
            "gold_clusters": len(set(data["clusters"].values())),
            "pairs": len(scores),
            "auto_threshold": settings.RESOLUTION_AUTO_THRESHOLD,
            "review_threshold": settings.RESOLUTION_REVIEW_THRESHOLD,
            "auto": b_cubed(predicted=cluster(keys=keys, scores=scores), gold=data["clusters"]),
            "auto_plus_review": b_cubed(predicted=cluster(keys=keys, scores=scores, bands=("auto", "review")), gold=data["clusters"]),
            "review_pairs": sum(1 for s in scores if s.band == "review"),
            "seconds": round(elapsed, 3),
        }
        for name in ("auto", "auto_plus_review"):
            numbers = result[name]
            self.stdout.write(f"{name:>17}: B-cubed P {numbers['precision']:.3f}  R {numbers['recall']:.3f}  F1 {numbers['f1']:.3f}")
        self.stdout.write(f"review pairs: {result['review_pairs']} of {result['pairs']}")
        self.stdout.write(json.dumps(result))
