"""The quality gate: every quality benchmark that needs no downloaded data, each figure against the one
recorded in docs/benchmarks.md; a drop fails the suite."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.support.stack import ROOT

pytestmark = pytest.mark.django_db(transaction=True)


def test_no_quality_figure_fell_below_the_recorded_one():
    out = StringIO()
    call_command("bench_quality", stdout=out, locomo=None)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    summary = lines[-1]
    assert summary["benchmark"] == "quality" and summary["drops"] == [] and summary["recorded"] is True
    assert [line["gate"] for line in lines[:-1]] == ["context_graph_triples", "context_graph_text", "extraction_poleo",
                                                     "resolution_poleo", "chat_gold"]
    assert set(summary["skipped"]) == {"chat_gold_locomo", "chat_gold_heldout", "locomo"}


def test_a_figure_below_the_recorded_one_fails_naming_it(tmp_path):
    recorded = (ROOT / "docs" / "benchmarks.md").read_text()
    docs = tmp_path / "benchmarks.md"
    figures = json.loads(recorded.split("<!-- quality-gate:begin -->")[1].split("```json")[1].split("```")[0])
    figures["resolution_poleo"]["auto_f1"] = 1.5  # above what any run can score
    docs.write_text(recorded.split("<!-- quality-gate:begin -->")[0] + "<!-- quality-gate:begin -->\n```json\n"
                    + json.dumps(figures) + "\n```\n<!-- quality-gate:end -->\n")
    with pytest.raises(CommandError, match=r"resolution_poleo\.auto_f1 1\.5 -> 1\.0"):
        call_command("bench_quality", stdout=StringIO(), only="resolution_poleo", docs=str(docs), locomo=None)
