"""The quality gate: every quality benchmark that needs no downloaded data, each figure against the one
recorded in docs/benchmarks.md; a drop fails the suite."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memory.embeddings import MiniLMEmbedder, get_embedder
from tests.support.stack import ROOT

pytestmark = pytest.mark.django_db(transaction=True)


def test_no_quality_figure_fell_below_the_recorded_one():
    out = StringIO()
    call_command("bench_quality", stdout=out, locomo=None)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    summary = lines[-1]
    assert summary["benchmark"] == "quality" and summary["drops"] == [] and summary["recorded"] is True
    assert [line["gate"] for line in lines[:-1]] == ["context_graph_triples", "context_graph_text", "knowledge_top10",
                                                     "extraction_poleo", "resolution_poleo", "chat_gold"]
    # Of the float MiniLM's top 10, what the configured encoder keeps: all of it when it is that one.
    kept = summary["figures"]["knowledge_top10"]
    least = 1.0 if type(get_embedder().inner) is MiniLMEmbedder else 0.95
    assert set(kept) == {"mixed", "reembedded"} and min(kept.values()) >= least
    assert set(summary["skipped"]) == {"chat_gold_locomo", "chat_gold_heldout", "locomo", "poisoning",
                                       "poisoning_locomo"}


def test_a_figure_below_the_recorded_one_fails_naming_it(tmp_path):
    recorded = (ROOT / "docs" / "benchmarks.md").read_text()
    docs = tmp_path / "benchmarks.md"
    figures = json.loads(recorded.split("<!-- quality-gate:begin -->")[1].split("```json")[1].split("```")[0])
    figures["resolution_poleo"]["auto_f1"] = 1.5  # above what any run can score
    docs.write_text(recorded.split("<!-- quality-gate:begin -->")[0] + "<!-- quality-gate:begin -->\n```json\n"
                    + json.dumps(figures) + "\n```\n<!-- quality-gate:end -->\n")
    with pytest.raises(CommandError, match=r"resolution_poleo\.auto_f1 1\.5 -> 1\.0"):
        call_command("bench_quality", stdout=StringIO(), only="resolution_poleo", docs=str(docs), locomo=None)


def answers(found: list[list[str]]) -> dict:
    """Answers of one LoCoMo run as bench_conversations writes them: question n's evidence is D1:n and D2:n."""
    return {"benchmark": "conversations", "embedders": None, "answers": [
        {"conversation": "99", "question": n, "category": 1 + n % 2, "evidence": [f"D1:{n}", f"D2:{n}"],
         "found": turns, "ranked": turns, "tokens": 100} for n, turns in enumerate(found)]}


def test_a_paired_locomo_comparison_passes_equal_runs_and_fails_a_drop(tmp_path):
    found = [[f"D1:{n}", f"D2:{n}"] for n in range(40)]
    reference, same, worse = tmp_path / "float.json", tmp_path / "same.json", tmp_path / "worse.json"
    reference.write_text(json.dumps(answers(found)))
    same.write_text(json.dumps(answers(found)))
    worse.write_text(json.dumps(answers([turns[:1] if n % 4 == 0 else turns for n, turns in enumerate(found)])))

    out = StringIO()
    call_command("bench_quality", stdout=out, only="locomo", locomo=None, paired=str(reference), answers=str(same))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    paired = lines[0]
    assert paired["gate"] == "locomo_paired" and lines[-1]["drops"] == []
    assert paired["overall"] | {"interval_95": None} == {"questions": 40, "reference": 1.0, "candidate": 1.0,
                                                         "difference": 0.0, "interval_95": None, "better": 0,
                                                         "worse": 0}
    assert paired["overall"]["interval_95"] == [0.0, 0.0] and sorted(paired["by_category"]) == ["1", "2"]

    with pytest.raises(CommandError, match=r"locomo_paired\.evidence_found_difference 0\.0 -> -0\.125"):
        call_command("bench_quality", stdout=StringIO(), only="locomo", locomo=None, paired=str(reference),
                     answers=str(worse))


def test_paired_answers_of_other_questions_are_refused(tmp_path):
    reference, other = tmp_path / "float.json", tmp_path / "other.json"
    reference.write_text(json.dumps(answers([["D1:0"], ["D1:1"]])))
    other.write_text(json.dumps(answers([["D1:0"]])))
    with pytest.raises(CommandError, match="different questions"):
        call_command("bench_quality", stdout=StringIO(), only="locomo", locomo=None, paired=str(reference),
                     answers=str(other))
