"""Run the configured extractor over the hand-labelled chat turns and print precision and recall."""

import json
import time
from collections import defaultdict
from datetime import datetime, time as day_time, timedelta, timezone
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory import ingest
from memory.extraction import Turn, get_extractor
from memory.extraction.gold import GoldError, GoldTurn, gold_load, gold_score, surface
from memory.management.commands.bench_conversations import PREFERENCES_CURRENT_ALL, same_meaning_pairs
from memory.management.replay import replay_served
from portal import graphdb

# Every other name the graph holds for an entity of one person: its aliases (a name merged into it is one) and the
# merges still proposed to a reviewer.
ENTITY_ALIASES = """
MATCH (e:Entity {user_id: $user_id}) UNWIND coalesce(e.aliases, []) AS alias
RETURN e.name AS name, alias AS other, 'alias' AS kind
UNION ALL
MATCH (a:Entity {user_id: $user_id})-[s:SAME_AS {status: 'pending'}]->(b:Entity)
RETURN a.name AS name, b.name AS other, 'proposed' AS kind
"""


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
        parser.add_argument("--graph", action="store_true",
                            help="with --memorybank: also replay each person's sessions through the API and the worker's "
                                 "step, then judge every alias and proposed merge the graph holds against the names the "
                                 "gold says are one thing, and count same-meaning current preferences (needs Neo4j)")
        parser.add_argument("--first-speaker", choices=["user", "assistant"], default="user",
                            help="the role of each LoCoMo conversation's first speaker (default user)")
        parser.add_argument("--speaker-labels", action="store_true",
                            help='send each LoCoMo turn as "Name: text", as clients replaying a chat between people do')
        parser.add_argument("--no-dates", action="store_true", help="give the extractor no reference date")
        parser.add_argument("--context", type=int, default=3,
                            help="earlier turns given to the extractor (default 3, as the extraction worker reads)")
        parser.add_argument("--false-positives", type=int, default=15, help="how many of each kind to list")

    def handle(self, *args, gold, locomo, context, false_positives, heldout, entities, fresh_entities, memorybank,
               graph, first_speaker, speaker_labels, no_dates, **options):
        if context < 0:
            raise CommandError("--context: must be 0 or more")
        if graph and not memorybank:
            raise CommandError("--graph: only the MemoryBank sample (--memorybank) holds whole conversations")
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

        self._sections_write(report, entities_only=entities_only)
        if graph:
            report["graph"] = _graph(turns)
            self.stdout.write(f"graph: aliases and proposed merges right {report['graph']['aliases']['right']} of "
                              f"{report['graph']['aliases']['held']}; same-meaning preference pairs "
                              f"{report['graph']['same_meaning_preference_pairs']}")
        for kind, items in report["false_positives"].items():
            self.stdout.write(f"false {kind}: " + "; ".join(f"{name} x{n} (e.g. {turn})" for name, n, turn in items))
        self.stdout.write(json.dumps({"benchmark": "chat_gold", "extractor": extractor.name, "context_turns": context,
                                      "locomo": bool(locomo), "heldout": heldout, "entities_sample": entities,
                                      "fresh_entities_sample": fresh_entities, "memorybank": memorybank,
                                      "first_speaker": first_speaker,
                                      "speaker_labels": speaker_labels, "dates": not no_dates, **report, "seconds": round(seconds, 3)}))


    def _sections_write(self, report: dict, *, entities_only: bool) -> None:
        """Write each source's figures, overall first."""
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


def _entities_only(report: dict) -> dict:
    """Return a report of a sample labelled for entities alone: its entity figures and false entities only."""
    kept = ("turns", "entities_typed", "entities", "entities_typed_names", "entities_untyped_share")
    return {"overall": {k: report["overall"][k] for k in kept},
            "by_source": {name: {k: section[k] for k in kept} for name, section in report["by_source"].items()},
            "false_positives": {"entities": report["false_positives"]["entities"]}}


def _graph(turns: list[GoldTurn]) -> dict:
    """Replay each person's turns as their memory (a session a day, in order, the worker's step run on each), then judge
    each other name the graph holds for an entity: right when the gold says both names are one thing."""
    by_person = defaultdict(list)
    for turn in turns:
        by_person[turn.conversation].append(turn)
    judged, same_meaning = [], []
    with replay_served(name="bench_chat_gold") as replay:
        for person, said in by_person.items():
            user_id = replay.person().user_id
            for n, turn in enumerate(said):
                moment = datetime.combine(turn.reference_date, day_time(12), timezone.utc) + timedelta(seconds=n)
                stored = replay.post(f"/conversations/{turn.reference_date}/messages", {
                    "user_id": user_id, "messages": [{"role": turn.role, "content": turn.text,
                                                      "created_at": moment.isoformat()}]})
                for result in stored["results"]:
                    if result["stored"]:
                        ingest.message_extract(message_uid=result["uid"], user_id=user_id)
            things = _one_thing(said)
            for row in graphdb.rows(ENTITY_ALIASES, {"user_id": user_id}):
                left, right = surface(row["name"]), surface(row["other"])
                right_pair = left == right or any(left in forms and right in forms for forms in things)
                judged.append({"person": person, "name": row["name"], "other": row["other"], "kind": row["kind"],
                               "right": right_pair})
            current = graphdb.rows(PREFERENCES_CURRENT_ALL, {"user_id": user_id})
            same_meaning += [{"person": person, "pair": pair} for pair in same_meaning_pairs(current)]
    right = sum(j["right"] for j in judged)
    return {"aliases": {"held": len(judged), "right": right, "share_right": round(right / len(judged), 4) if judged else None,
                        "wrong": [j for j in judged if not j["right"]]},
            "same_meaning_preference_pairs": len(same_meaning), "same_meaning": same_meaning}


def _one_thing(turns: list[GoldTurn]) -> list[set[str]]:
    """Return the sets of names the gold says are one thing in these turns (a name and its aliases, joined across
    turns where they share one)."""
    groups: list[set[str]] = []
    for turn in turns:
        for entity in turn.entities:
            forms = {surface(n) for n in [entity["name"], *entity.get("aliases", ())]}
            joined = [g for g in groups if g & forms]
            for group in joined:
                groups.remove(group)
                forms |= group
            groups.append(forms)
    return groups
