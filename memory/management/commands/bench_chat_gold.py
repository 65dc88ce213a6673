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
        parser.add_argument("--heldout", action="store_true",
                            help="score the held-out LoCoMo turns alone (data/chat_gold/locomo_heldout.json; needs --locomo)")
        parser.add_argument("--entities", action="store_true",
                            help="score the development entity samples of conversations 42-50 alone, each as a source "
                                 "(data/chat_gold/locomo_entities.json and locomo_entities_fresh.json; needs --locomo): "
                                 "they are labelled for entities only, so only entities are reported")
        parser.add_argument("--fresh-entities", action="store_true",
                            help="score the held-out entity sample of conversations 42-50 alone "
                                 "(data/chat_gold/locomo_entities_fresh2.json; needs --locomo), entities only")
        parser.add_argument("--memorybank", action="store_true",
                            help="score the held-out MemoryBank turns alone (data/chat_gold/memorybank.json, issue 40)")
        parser.add_argument("--first-speaker", choices=["user", "assistant"], default="user",
                            help="the role of each LoCoMo conversation's first speaker (default user)")
        parser.add_argument("--speaker-labels", action="store_true",
                            help='send each LoCoMo turn as "Name: text", as clients replaying a chat between people do')
        parser.add_argument("--no-dates", action="store_true", help="give the extractor no reference date")
        parser.add_argument("--context", type=int, default=3,
                            help="earlier turns given to the extractor (default 3, as the extraction worker reads)")
        parser.add_argument("--false-positives", type=int, default=15, help="how many of each kind to list")

    def handle(self, *args, gold, locomo, context, false_positives, heldout, entities, fresh_entities, memorybank,
               first_speaker, speaker_labels, no_dates, **options):
        if context < 0:
            raise CommandError("--context: must be 0 or more")
        try:
            turns = gold_load(directory=Path(gold), locomo=Path(locomo) if locomo else None, heldout=heldout,
                              entities=entities, fresh=fresh_entities, memorybank=memorybank,
                              first_speaker=first_speaker)
        except GoldError as error:
            raise CommandError(str(error)) from error
        if not locomo and not memorybank:
            self.stderr.write("LoCoMo turns skipped: pass --locomo DIR to score them too.")
        extractor = get_extractor()
        by_id = {turn.id: turn for turn in turns}
        started = time.perf_counter()
        scored = []
        def sent(turn):
            return f"{turn.speaker}: {turn.text}" if speaker_labels and turn.speaker else turn.text

        for turn in turns:
            recent = turn.context[-context:] if context else ()
            earlier = [Turn(role=by_id[i].role, content=sent(by_id[i])) for i in recent]
            scored.append((turn, extractor.extract(text=sent(turn), role=turn.role, context=earlier,
                                                   reference_date=None if no_dates else turn.reference_date)))
        seconds = time.perf_counter() - started
        report = gold_score(scored=scored, false_positives=false_positives)
        entities_only = entities or fresh_entities
        if entities_only:
            report = _entities_only(report)

        for name, section in [("overall", report["overall"]), *report["by_source"].items()]:
            self.stdout.write(f"{name} ({section['turns']} turns)")
            kinds = ("entities_typed", "entities", "entities_typed_names")
            for key in kinds if entities_only else (*kinds, "facts", "preferences"):
                n = section[key]
                self.stdout.write(f"  {key:>20}: P {n['precision']:.3f}  R {n['recall']:.3f}  F1 {n['f1']:.3f}  "
                                  f"({n['matched']} of {n['predicted']} predicted, {n['gold']} gold)")
            self.stdout.write(f"  {'untyped share':>20}: {section['entities_untyped_share']:.3f}")
            if not entities_only and section["preferences_self_contained"] is not None:
                self.stdout.write(f"  {'preferences alone':>20}: {section['preferences_self_contained']:.3f}")
        for kind, items in report["false_positives"].items():
            self.stdout.write(f"false {kind}: " + "; ".join(f"{name} x{n} (e.g. {turn})" for name, n, turn in items))
        self.stdout.write(json.dumps({"benchmark": "chat_gold", "extractor": extractor.name, "context_turns": context,
                                      "locomo": bool(locomo), "heldout": heldout, "entities_sample": entities,
                                      "fresh_entities_sample": fresh_entities, "memorybank": memorybank,
                                      "first_speaker": first_speaker,
                                      "speaker_labels": speaker_labels, "dates": not no_dates, **report, "seconds": round(seconds, 3)}))


def _entities_only(report: dict) -> dict:
    """Return a report of a sample labelled for entities alone: its entity figures and false entities only."""
    kept = ("turns", "entities_typed", "entities", "entities_typed_names", "entities_untyped_share")
    return {"overall": {k: report["overall"][k] for k in kept},
            "by_source": {name: {k: section[k] for k in kept} for name, section in report["by_source"].items()},
            "false_positives": {"entities": report["false_positives"]["entities"]}}
