import json
from collections import defaultdict
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory import ingest
from memory.management.replay import Replay, replay_served


class Command(BaseCommand):
    help = ("Replay context-graph scenarios through the HTTP API as one user each, ask every query through "
            "POST /api/v1/context and grade it by whether the ground truth appears in the returned context.")

    def add_arguments(self, parser):
        parser.add_argument("--scenarios", default=settings.BASE_DIR / "data" / "context_graph" / "scenarios.json",
                            help="scenarios.json of the context-graph benchmark (default: the copy in data/)")
        parser.add_argument("--mode", choices=["triples", "text"], default="triples",
                            help="triples: facts sent as explicit memory; text: only the text, through the extractor")
        parser.add_argument("--token-budget", type=int, default=28)
        parser.add_argument("--keep", action="store_true", help="keep the benchmark users' memory afterwards")

    def handle(self, *args, **options):
        path = Path(options["scenarios"])
        if not path.exists():
            raise CommandError(f"No scenarios file at {path}")
        scenarios = json.loads(path.read_text())
        with replay_served(name="bench_context_graph", keep=options["keep"]) as replay:
            results = [r for scenario in scenarios
                       for r in self._replay(replay, replay.person().user_id, scenario, options)]

        by_type = defaultdict(list)
        for r in results:
            by_type[r["query_type"]].append(r["correct"])
        summary = {
            "benchmark": "context_graph", "mode": options["mode"], "token_budget": options["token_budget"],
            "queries": len(results), "correct": sum(r["correct"] for r in results),
            "accuracy": round(sum(r["correct"] for r in results) / max(len(results), 1), 4),
            "by_type": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_type.items())},
            "avg_context_tokens": round(sum(r["tokens"] for r in results) / max(len(results), 1), 1),
        }
        self.stdout.write(json.dumps(summary))

    def _replay(self, replay: Replay, user_id: str, scenario: dict, options: dict) -> list[dict]:
        results = []
        for turn in scenario["turns"]:
            if turn["turn_type"] == "query":
                body = replay.post("/context", {
                    "user_id": user_id, "session_id": f"{scenario['name']}-questions", "query": turn["text"],
                    "token_budget": options["token_budget"],
                })
                correct = turn["ground_truth"].lower() in body["context"].lower()
                results.append({"query_type": turn["query_type"], "correct": correct, "tokens": body["token_count"]})
                mark = "ok  " if correct else "MISS"
                self.stdout.write(f"{mark} [{turn['query_type']}] {turn['text']} -> {body['context']!r}")
                continue
            message = {"role": "user", "content": turn["text"]}
            if options["mode"] == "triples" and turn["turn_type"] == "fact":
                message["facts"] = [{"subject": turn["subject"], "predicate": turn["predicate"],
                                     "object": turn["object"]}]
            stored = replay.post(f"/conversations/{scenario['name']}/messages",
                                 {"user_id": user_id, "messages": [message]})
            # Run the worker's step now, in order, so each query sees everything said before it.
            for result in stored["results"]:
                if result["stored"]:
                    ingest.message_extract(message_uid=result["uid"], user_id=user_id)
        return results

