"""The quality gate: every quality benchmark the repository can run, each figure against the recorded one."""

import json
import os
import re
import tempfile
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from memory.management.commands.bench_conversations import answers_compare

# The recorded figures live in docs/benchmarks.md between these two lines, as one JSON object.
RECORD_BEGIN = "<!-- quality-gate:begin -->"
RECORD_END = "<!-- quality-gate:end -->"
# A paired LoCoMo comparison counts as a drop when its mean falls this far or its interval lies below zero.
PAIRED_NOISE = 0.005
RECORD = re.compile(re.escape(RECORD_BEGIN) + r"\s*```json\s*(?P<json>.*?)\s*```\s*" + re.escape(RECORD_END),
                    re.DOTALL)


@dataclass(frozen=True)
class Benchmark:
    name: str
    command: str
    options: dict
    figures: dict[str, str]  # figure -> dotted path into the benchmark's JSON line
    noise: float = 0.0  # how far a figure may fall before it counts as a drop
    floor: float | None = None  # instead: the least a figure may be, whatever was recorded
    lower: frozenset = frozenset()  # figures that are better lower (a rise is their drop)
    locomo: bool = False  # reads LoCoMo, so runs only when a local copy is given
    whole: bool = False  # takes minutes, so runs only in the whole gate (when LoCoMo is given too)


# Entities real (precision, recall); typed: precision over the names given a type, the share left untyped (lower is
# better) and recall of the rightly typed (issue 40: a name nothing types stays untyped, never a guessed type).
CHAT_FIGURES = {**{f"{kind}_{measure}": f"overall.{kind}.{measure}" for kind in ("entities", "facts", "preferences")
                   for measure in ("precision", "recall")},
                "entities_typed_names_precision": "overall.entities_typed_names.precision",
                "entities_untyped_share": "overall.entities_untyped_share",
                "entities_typed_recall": "overall.entities_typed.recall"}
CHAT_LOWER = frozenset({"entities_untyped_share"})
# LoCoMo's questions are asked with the default request, then again with scarce budgets (issue 40: 200 and 100 tokens).
LOCOMO_BUDGETS = (200, 100)
LOCOMO_FIGURES = {"evidence_found": "recall.evidence_found", "recall_at_5": "recall.recall_at_5",
                  **{f"evidence_found_category_{c}": f"recall_by_category.{c}.evidence_found" for c in "1234"},
                  **{f"evidence_found_{b}_tokens": f"budgets.{b}.evidence_found" for b in LOCOMO_BUDGETS}}
BENCHMARKS = (
    Benchmark("context_graph_triples", "bench_context_graph", {"mode": "triples", "token_budget": 28},
              {"correct": "correct"}),
    Benchmark("context_graph_text", "bench_context_graph", {"mode": "text", "token_budget": 28},
              {"correct": "correct"}),
    # How much of the float MiniLM's top 10 by cosine the configured encoder keeps (1.0 when it is that one); the
    # vector index is reported beside it, not gated: its own recall@10 against exact is about 0.93 on these chunks.
    Benchmark("knowledge_top10", "bench_knowledge",
              {"overlap": True, "chunks": 5000, "queries": 50, "allow_populated": True},
              {"mixed": "overlap.exact.mixed", "reembedded": "overlap.exact.reembedded"}, floor=0.95),
    Benchmark("extraction_poleo", "bench_extraction", {},
              {"entities_typed_f1": "entities.typed.f1", "relations_f1": "relations.f1"}),
    Benchmark("resolution_poleo", "bench_resolution", {},
              {"auto_f1": "auto.f1", "auto_plus_review_f1": "auto_plus_review.f1"}),
    Benchmark("chat_gold", "bench_chat_gold", {}, CHAT_FIGURES, lower=CHAT_LOWER),
    Benchmark("chat_gold_locomo", "bench_chat_gold", {}, CHAT_FIGURES, locomo=True, lower=CHAT_LOWER),
    Benchmark("chat_gold_heldout", "bench_chat_gold", {"heldout": True, "speaker_labels": True}, CHAT_FIGURES,
              locomo=True, lower=CHAT_LOWER),
    Benchmark("locomo", "bench_conversations", {"conversations": "26,30,41,42,43,44,47,48,49,50",
                                                "token_budgets": ",".join(map(str, LOCOMO_BUDGETS))}, LOCOMO_FIGURES,
              noise=0.005, locomo=True),
    # The poisoning suite replayed: attacks whose poison a later context served, look-alikes whose memory it did not
    # (a change to recall or ranking can lose what the person said as surely as a defence can hold it); and LoCoMo's
    # ordinary turns held as if the assistant had written them.
    Benchmark("poisoning", "bench_poisoning", {}, {"attack_success": "attack_success",
                                                   "legitimate_lost": "legitimate_lost"},
              lower=frozenset({"attack_success", "legitimate_lost"}), whole=True),
    Benchmark("poisoning_locomo", "bench_poisoning", {}, {"held": "held"}, lower=frozenset({"held"}), locomo=True),
)


class Command(BaseCommand):
    help = ("Run every quality benchmark (the context graph in both modes, POLE+O extraction and resolution, the chat "
            "gold set, and with --locomo the LoCoMo turns and conversations), print one JSON line per benchmark and a "
            "summary, and fail when a figure fell below the one recorded in docs/benchmarks.md beyond its noise.")

    def add_arguments(self, parser):
        parser.add_argument("--locomo", default=os.environ.get("LOCOMO_DIR"),
                            help="a local copy of LoCoMo (locomo10.json or its <n>.json files); default $LOCOMO_DIR. "
                                 "Without it the benchmarks that read LoCoMo are skipped")
        parser.add_argument("--only", help="comma-separated benchmark names to run (default: all that can run)")
        parser.add_argument("--record", action="store_true",
                            help="write the figures measured now into docs/benchmarks.md instead of comparing")
        parser.add_argument("--docs", default=settings.BASE_DIR / "docs" / "benchmarks.md")
        parser.add_argument("--answers",
                            help="the LoCoMo conversations' per-question results: written here by this run's "
                                 "conversations when LoCoMo runs, else read from here for --paired")
        parser.add_argument("--paired",
                            help="a reference answers file (the float encoder's): compare --answers with it "
                                 "question by question, and count a drop when evidence found falls by more than "
                                 f"{PAIRED_NOISE} or its 95 %% interval lies below zero")

    def handle(self, *args, locomo, only, record, docs, answers, paired, **options):
        call_command("install_labels", verbosity=0, stdout=StringIO())  # a new store has no indexes yet
        if paired and not answers:
            answers = str(Path(tempfile.mkdtemp()) / "answers.json")
        docs = Path(docs)
        recorded = _recorded(docs)
        wanted = {name.strip() for name in only.split(",")} if only else None
        measured, drops, skipped = {}, [], []
        for benchmark in BENCHMARKS:
            if wanted is not None and benchmark.name not in wanted:
                continue
            if (benchmark.locomo or benchmark.whole) and not locomo:
                skipped.append(benchmark.name)
                continue
            line = self._run(benchmark, locomo, answers)
            self.stdout.write(json.dumps({"gate": benchmark.name, **line}))
            figures = {figure: _dig(line, path) for figure, path in benchmark.figures.items()}
            measured[benchmark.name] = figures
            for figure, value in figures.items():
                before = recorded.get(benchmark.name, {}).get(figure) if benchmark.floor is None else benchmark.floor
                if before is None:
                    continue
                fell = value - before if figure in benchmark.lower else before - value
                if fell > benchmark.noise + 1e-9:
                    drops.append({"benchmark": benchmark.name, "figure": figure, "recorded": before, "now": value})
        if paired:
            comparison = self._paired(reference=Path(paired), candidate=Path(answers))
            self.stdout.write(json.dumps({"gate": "locomo_paired", **comparison}))
            overall = comparison["overall"]
            if overall["difference"] < -PAIRED_NOISE or overall["interval_95"][1] < 0:
                drops.append({"benchmark": "locomo_paired", "figure": "evidence_found_difference",
                              "recorded": 0.0, "now": overall["difference"], "interval_95": overall["interval_95"]})
        if record:
            _record(docs, {**recorded, **measured})
        self.stdout.write(json.dumps({"benchmark": "quality", "figures": measured, "skipped": skipped,
                                      "drops": drops, "recorded": not record and bool(recorded)}))
        if drops and not record:
            raise CommandError(f"{len(drops)} quality figure(s) dropped: " + "; ".join(
                f"{d['benchmark']}.{d['figure']} {d['recorded']} -> {d['now']}" for d in drops))

    def _run(self, benchmark: Benchmark, locomo: str | None, answers: str | None) -> dict:
        out = StringIO()
        options = {**benchmark.options, **({"locomo": locomo} if benchmark.locomo else {})}
        if benchmark.command == "bench_conversations" and answers:
            options["answers"] = answers
        call_command(benchmark.command, stdout=out, stderr=StringIO(), **options)
        return json.loads(out.getvalue().strip().splitlines()[-1])

    def _paired(self, *, reference: Path, candidate: Path) -> dict:
        for path in (reference, candidate):
            if not path.exists():
                raise CommandError(f"No answers file at {path}: LoCoMo's conversations write one (--locomo with "
                                   "--answers, or bench_conversations --answers).")
        return answers_compare(reference=json.loads(reference.read_text()), candidate=json.loads(candidate.read_text()))


def _dig(line: dict, path: str) -> float:
    value = line
    for key in path.split("."):
        value = value[key]
    return value


def _recorded(docs: Path) -> dict:
    found = RECORD.search(docs.read_text()) if docs.exists() else None
    return json.loads(found["json"]) if found else {}


def _record(docs: Path, figures: dict) -> None:
    block = f"{RECORD_BEGIN}\n```json\n{json.dumps(figures, indent=1, sort_keys=True)}\n```\n{RECORD_END}"
    text = docs.read_text()
    if RECORD.search(text):
        text = RECORD.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + f"\n\n## Quality gate (`python manage.py bench_quality`)\n\n{block}\n"
    docs.write_text(text)
