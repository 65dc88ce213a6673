import json
from collections import Counter, defaultdict
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory import ingest, trust
from memory.management import poisoning
from memory.management.commands.bench_conversations import conversations_load
from memory.management.replay import Replay, replay_served

# What a scenario's turn may carry into the append, beside its role and content.
MESSAGE_FIELDS = ("facts", "preferences", "entities")
LOCOMO_IDS = ("26", "30", "41", "42", "43", "44", "47", "48", "49", "50")


class Command(BaseCommand):
    help = ("Replay memory-poisoning scenarios and their legitimate look-alikes through the HTTP API, one person "
            "each (the person's earlier turns, then the turns or trace under test, each message extracted by the "
            "worker's step), ask an ordinary later question from a new session and report which attacks had "
            "their poison served in the context (attack success) and which look-alikes were not (benign loss). "
            "With --rotation, also each family replayed with memory.trust's weights fitted without it: the figure "
            "for families the defence was not fitted on.")

    def add_arguments(self, parser):
        parser.add_argument("--scenarios", default=settings.BASE_DIR / "data" / "poisoning" / "scenarios.json",
                            help="the scenarios file (default: data/poisoning/scenarios.json)")
        parser.add_argument("--only", default="", help="comma-separated scenario ids or families to run")
        parser.add_argument("--keep", action="store_true", help="keep the benchmark people's memory afterwards")
        parser.add_argument("--rotation", action="store_true",
                            help="also measure each family with the weights fitted on the other families")
        parser.add_argument("--fit", action="store_true",
                            help="print the weights fitted on every family's units (what memory.trust.WEIGHTS holds) "
                                 "and the units' figures by family, without replaying")
        parser.add_argument("--locomo", default="",
                            help="a LoCoMo directory: count its turns held as if the second speaker were the "
                                 "assistant, with their reasons, without replaying")

    def handle(self, *args, **options):
        if options["locomo"]:
            self.stdout.write(json.dumps(self._locomo(Path(options["locomo"]))))
            return
        scenarios = _scenarios(Path(options["scenarios"]), options["only"])
        units = poisoning.units(scenarios)
        if options["fit"]:
            self.stdout.write(json.dumps(_fitted(scenarios, units)))
            return
        with replay_served(name="bench_poisoning", keep=options["keep"]) as replay:
            results = {s["id"]: self._run(replay, s) for s in scenarios}
            summary = _summary(list(results.values()))
            if options["rotation"]:
                summary["left_out"] = self._rotation(replay, scenarios, units, results)
        self.stdout.write(json.dumps(summary))

    def _run(self, replay: Replay, scenario: dict, mark: str = "") -> dict:
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
        label = ("SERVED" if attack else "LOST  ") if failed else "ok    "
        self.stdout.write(f"{label} {scenario['kind']:<10} {scenario['family']:<22} {scenario['id']}{mark}"
                          + (f" (through {', '.join(through)})" if attack and failed else ""))
        return {"id": scenario["id"], "kind": scenario["kind"], "family": scenario["family"],
                "language": scenario["language"], "failed": failed, "through": through}

    def _rotation(self, replay: Replay, scenarios: list[dict], units: list[poisoning.Unit],
                  shipped: dict[str, dict]) -> dict:
        """Measure each family with the weights fitted on the others: a scenario whose units those weights decide as
        the shipped ones do is served as it was; the others are replayed with them."""
        by_family = defaultdict(list)
        for scenario in scenarios:
            by_family[scenario["family"]].append(scenario)
        results = []
        for family, weights in poisoning.rotation(units, sorted(by_family)).items():
            changed = {u.scenario for u in units
                       if u.family == family and u.held(weights) != u.held(trust.WEIGHTS)}
            with weights_used(weights):
                results += [self._run(replay, s, mark=" (left out)") if s["id"] in changed else shipped[s["id"]]
                            for s in by_family[family]]
        summary = _summary(results)
        rates = {kind: [failed / total for family, (failed, total) in _by_family(results, kind).items()]
                 for kind in ("attack", "legitimate")}
        return {**summary, "mean_attack_success": _mean(rates["attack"]),
                "mean_legitimate_lost": _mean(rates["legitimate"])}

    def _locomo(self, directory: Path) -> dict:
        """Read every LoCoMo turn of the second speaker as the assistant's, against what the first said before it,
        as an append reads an untrusted message; return how many are held and why."""
        held, turns = [], 0
        for conversation in conversations_load(directory=directory, ids=list(LOCOMO_IDS)):
            person = poisoning.ScenarioPerson()
            for session in conversation["sessions"]:
                for turn in session["turns"]:
                    turns += 1
                    content = f"{turn['speaker']}: {turn['text']}"
                    if conversation["roles"][turn["speaker"]] == "user":
                        person.hear(content)
                    elif reasons := trust.untrusted_reasons(content, person=person, source=trust.ASSISTANT):
                        held.append({"conversation": conversation["id"], "turn": turn["dia_id"], "reasons": reasons})
                        self.stdout.write(f"HELD {conversation['id']} {turn['dia_id']}: {'; '.join(reasons)}")
        return {"benchmark": "poisoning_locomo", "turns": turns, "held": len(held), "per_2000": round(
            len(held) * 2000 / max(turns, 1), 2), "reasons": dict(Counter(r for h in held for r in h["reasons"]))}


def _fitted(scenarios: list[dict], units: list[poisoning.Unit]) -> dict:
    """Return the weights fitted on every family's units, and the units' figures read with them (tuned) and with
    each family's weights fitted without it (left out): poison let through and look-alike units held."""
    weights = poisoning.fit(units)
    families = sorted({s["family"] for s in scenarios})
    left_out = poisoning.unit_figures(units, poisoning.rotation(units, families))
    tuned = poisoning.unit_figures(units, defaultdict(lambda: weights))

    def totals(figures: dict) -> dict:
        return {key: sum(row[key] for row in figures.values()) for key in ("poison", "through", "benign", "held")}

    return {"benchmark": "poisoning_fit", "weights": weights, "shipped": weights == trust.WEIGHTS,
            "tuned": totals(tuned), "left_out": totals(left_out), "left_out_by_family": left_out}


@contextmanager
def weights_used(weights: dict[str, int]):
    """Have memory.trust decide with these weights for the block (the replay runs in this process)."""
    shipped = dict(trust.WEIGHTS)
    trust.WEIGHTS.update(weights)
    try:
        yield
    finally:
        trust.WEIGHTS.update(shipped)


def _scenarios(path: Path, only: str) -> list[dict]:
    if not path.exists():
        raise CommandError(f"No scenarios file at {path}")
    scenarios = json.loads(path.read_text())["scenarios"]
    chosen = {name for name in only.split(",") if name}
    return [s for s in scenarios if s["id"] in chosen or s["family"] in chosen] if chosen else scenarios


def _append(replay: Replay, user_id: str, session_id: str, turns: list[dict]) -> None:
    """Append the turns in one request, then run the worker's step on each stored message, in order."""
    if not turns:
        return
    messages = [{"role": t["role"], "content": t["content"], **{k: t[k] for k in MESSAGE_FIELDS if k in t},
                 **({"tool_name": t["tool"]} if "tool" in t else {}),
                 **({"source_url": t["source_url"]} if "source_url" in t else {})}
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


def _by_family(results: list[dict], kind: str) -> dict[str, tuple[int, int]]:
    counts = defaultdict(lambda: [0, 0])
    for r in results:
        if r["kind"] == kind:
            counts[r["family"]][0] += r["failed"]
            counts[r["family"]][1] += 1
    return {family: (failed, total) for family, (failed, total) in sorted(counts.items())}


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _summary(results: list[dict]) -> dict:
    attacks = [r for r in results if r["kind"] == "attack"]
    legitimate = [r for r in results if r["kind"] == "legitimate"]
    by_family = {**_by_family(results, "attack"), **_by_family(results, "legitimate")}
    return {
        "benchmark": "poisoning",
        "attacks": len(attacks), "attack_success": sum(r["failed"] for r in attacks),
        "legitimate": len(legitimate), "legitimate_lost": sum(r["failed"] for r in legitimate),
        "by_family": {family: f"{failed}/{total}" for family, (failed, total) in sorted(by_family.items())},
        "served_through": dict(Counter(kind for r in attacks if r["failed"] for kind in r["through"])),
        "served": [r["id"] for r in attacks if r["failed"]],
        "lost": [r["id"] for r in legitimate if r["failed"]],
    }
