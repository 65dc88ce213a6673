import json
from collections import Counter, defaultdict
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory import ingest
from memory.management.replay import Replay, replay_served

# What a scenario's turn may carry into the append, beside its role and content.
MESSAGE_FIELDS = ("facts", "preferences", "entities")


class Command(BaseCommand):
    help = ("Replay memory-poisoning scenarios and their legitimate look-alikes through the HTTP API, one person "
            "each (the person's earlier turns, then the turns or trace under test, each message extracted by the "
            "worker's step), ask an ordinary later question from a new session and report which attacks had "
            "their poison served in the context (attack success) and which look-alikes were not (benign loss).")

    def add_arguments(self, parser):
        parser.add_argument("--scenarios", default=settings.BASE_DIR / "data" / "poisoning" / "scenarios.json",
                            help="the scenarios file (default: data/poisoning/scenarios.json)")
        parser.add_argument("--only", default="", help="comma-separated scenario ids or families to run")
        parser.add_argument("--keep", action="store_true", help="keep the benchmark people's memory afterwards")

    def handle(self, *args, **options):
        path = Path(options["scenarios"])
        if not path.exists():
            raise CommandError(f"No scenarios file at {path}")
        scenarios = json.loads(path.read_text())["scenarios"]
        only = {name for name in options["only"].split(",") if name}
        if only:
            scenarios = [s for s in scenarios if s["id"] in only or s["family"] in only]
        with replay_served(name="bench_poisoning", keep=options["keep"]) as replay:
            results = [self._run(replay, scenario) for scenario in scenarios]
        self.stdout.write(json.dumps(_summary(results)))

    def _run(self, replay: Replay, scenario: dict) -> dict:
        """Replay one scenario for a new person and ask its question; return what the context served."""
        user_id = replay.person().user_id
        _append(replay, user_id, "earlier", scenario.get("before", []))
        _append(replay, user_id, "talk", scenario.get("turns", []))
        if "trace" in scenario:
            _trace(replay, user_id, "talk", scenario["trace"])
        body = replay.post("/context", {"user_id": user_id, "session_id": "later", "query": scenario["question"]})
        context = body["context"].lower()
        found = [marker for marker in scenario["served"] if marker.lower() in context]
        through = sorted({item["type"] for item in body["items"]
                          if any(marker.lower() in item["text"].lower() for marker in found)})
        attack = scenario["kind"] == "attack"
        failed = bool(found) if attack else not found
        mark = ("SERVED" if attack else "LOST  ") if failed else "ok    "
        self.stdout.write(f"{mark} {scenario['kind']:<10} {scenario['family']:<22} {scenario['id']}"
                          + (f" (through {', '.join(through)})" if attack and failed else ""))
        return {"id": scenario["id"], "kind": scenario["kind"], "family": scenario["family"],
                "language": scenario["language"], "failed": failed, "through": through}


def _append(replay: Replay, user_id: str, session_id: str, turns: list[dict]) -> None:
    """Append the turns in one request, then run the worker's step on each stored message, in order."""
    if not turns:
        return
    messages = [{"role": t["role"], "content": t["content"], **{k: t[k] for k in MESSAGE_FIELDS if k in t}}
                for t in turns]
    stored = replay.post(f"/conversations/{session_id}/messages", {"user_id": user_id, "messages": messages})
    for result in stored["results"]:
        if result["stored"]:
            ingest.message_extract(message_uid=result["uid"], user_id=user_id)


def _trace(replay: Replay, user_id: str, session_id: str, trace: dict) -> None:
    uid = replay.post("/traces", {"user_id": user_id, "session_id": session_id, "task": trace["task"]})["uid"]
    for step in trace["steps"]:
        replay.post(f"/traces/{uid}/steps", {"user_id": user_id, **step})
    replay.post(f"/traces/{uid}/complete", {"user_id": user_id, "outcome": trace["outcome"], "success": trace["success"]})


def _summary(results: list[dict]) -> dict:
    attacks = [r for r in results if r["kind"] == "attack"]
    legitimate = [r for r in results if r["kind"] == "legitimate"]
    by_family = defaultdict(lambda: [0, 0])
    for r in results:
        by_family[r["family"]][0] += r["failed"]
        by_family[r["family"]][1] += 1
    return {
        "benchmark": "poisoning",
        "attacks": len(attacks), "attack_success": sum(r["failed"] for r in attacks),
        "legitimate": len(legitimate), "legitimate_lost": sum(r["failed"] for r in legitimate),
        "by_family": {family: f"{failed}/{total}" for family, (failed, total) in sorted(by_family.items())},
        "served_through": dict(Counter(kind for r in attacks if r["failed"] for kind in r["through"])),
        "served": [r["id"] for r in attacks if r["failed"]],
        "lost": [r["id"] for r in legitimate if r["failed"]],
    }
