"""Run the configured extractor over the hand-labelled chat turns and print precision and recall."""

import json
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory.extraction import Turn, get_extractor
from memory.extraction.gold import GoldError, gold_load, gold_score


class Command(BaseCommand):
    help = ("Score the configured extractor on data/chat_gold/: entities (typed and untyped), facts about the person "
            "and preferences, overall and per source, with the commonest false positives; one JSON line last.")

    def add_arguments(self, parser):
        parser.add_argument("--gold", default=settings.BASE_DIR / "data" / "chat_gold",
                            help="the gold directory (default: data/chat_gold/)")
        parser.add_argument("--locomo", help="a local copy of LoCoMo (locomo10.json or its <n>.json files) for its "
                                             "development turns; without it only the Taskmaster turns are scored")
        parser.add_argument("--context", type=int, default=3,
                            help="earlier turns given to the extractor (default 3, as the extraction worker reads)")
        parser.add_argument("--false-positives", type=int, default=15, help="how many of each kind to list")

    def handle(self, *args, gold, locomo, context, false_positives, **options):
        if context < 0:
            raise CommandError("--context: must be 0 or more")
        try:
            turns = gold_load(directory=Path(gold), locomo=Path(locomo) if locomo else None)
        except GoldError as error:
            raise CommandError(str(error)) from error
        if not locomo:
            self.stderr.write("LoCoMo turns skipped: pass --locomo DIR to score them too.")
        extractor = get_extractor()
        by_id = {turn.id: turn for turn in turns}
        started = time.perf_counter()
        scored = []
        for turn in turns:
            recent = turn.context[-context:] if context else ()
            earlier = [Turn(role=by_id[i].role, content=by_id[i].text) for i in recent]
            scored.append((turn, extractor.extract(text=turn.text, role=turn.role, context=earlier,
                                                   reference_date=turn.reference_date)))
        seconds = time.perf_counter() - started
        report = gold_score(scored=scored, false_positives=false_positives)

        for name, section in [("overall", report["overall"]), *report["by_source"].items()]:
            self.stdout.write(f"{name} ({section['turns']} turns)")
            for key in ("entities_typed", "entities", "facts", "preferences"):
                n = section[key]
                self.stdout.write(f"  {key:>15}: P {n['precision']:.3f}  R {n['recall']:.3f}  F1 {n['f1']:.3f}  "
                                  f"({n['matched']} of {n['predicted']} predicted, {n['gold']} gold)")
        for kind, items in report["false_positives"].items():
            self.stdout.write(f"false {kind}: " + "; ".join(f"{name} x{n} (e.g. {turn})" for name, n, turn in items))
        self.stdout.write(json.dumps({"benchmark": "chat_gold", "extractor": extractor.name, "context_turns": context,
                                      "locomo": bool(locomo), **report, "seconds": round(seconds, 3)}))
