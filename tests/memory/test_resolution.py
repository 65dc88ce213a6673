import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.test import override_settings

from memory.resolution import Candidate, band_for, cluster, score_pair, score_pairs
from tests.support.stack import ROOT

GOLD = ROOT / "data" / "poleo" / "poleo_resolution_gold.json"


def pair(a, b, type_="PERSON", **kwargs):
    return score_pairs(candidates=[Candidate(key="a", name=a, type=type_, **kwargs), Candidate(key="b", name=b, type=type_, **kwargs)])[0]


@pytest.mark.parametrize(
    ("left", "right", "type_", "signal"),
    [
        ("Borealis Systems Inc", "BOREALIS SYSTEMS", "ORGANIZATION", "exact"),
        ("IBM", "International Business Machines", "ORGANIZATION", "initialism"),
        ("O.G.", "Olivia Grant", "PERSON", "initialism"),
        ("Olivia", "Olivia Grant", "PERSON", "short_form"),
    ],
)
def test_strong_evidence_merges_automatically(left, right, type_, signal):
    score = pair(left, right, type_)
    assert getattr(score, signal) > 0.9 and score.band == "auto"


def test_signed_name_and_near_names_wait_for_review():
    assert pair("T. Okafor", "Tim Okafor").band == "review"
    assert pair("T. Okafor", "Tim Okafor").signed_name > 0
    assert pair("Jonathan Ruiz", "Jonathon Ruiz").band == "review"
    assert pair("S. Okafor", "Tim Okafor").signed_name == 0


def test_unrelated_names_stay_separate():
    score = pair("Olivia Grant", "Hugo Lind")
    assert score.band == "separate" and score.combined < 0.7


def test_types_must_agree():
    score = score_pair(
        left=Candidate(key="a", name="Galway", type="LOCATION"),
        right=Candidate(key="b", name="Galway Harbour Festival", type="EVENT"),
        embedding_similarity=0.99,
    )
    assert not score.type_compatible and score.combined == 0.0 and score.band == "separate"


def test_text_that_equates_two_names_or_uses_a_nominal_is_evidence():
    context = "The critic who writes as M. Oduya is Ruth Kamau. She chairs the Tarn Valley Trust. The trust owns a farm."
    assert pair("M. Oduya", "Ruth Kamau", context=context).equated == 1.0
    assert pair("M. Oduya", "Ruth Kamau").equated == 0.0
    # "is" says what a name is, not another name of it, unless it follows a name one writes or signs as
    assert pair("Toby", "German Shepherd", context="My dog Toby is German Shepherd through and through.").equated == 0.0
    nominal = pair("The trust", "Tarn Valley Trust", "ORGANIZATION", context=context)
    assert nominal.nominal > 0 and nominal.band == "auto"


def test_bands_follow_the_thresholds():
    with override_settings(RESOLUTION_AUTO_THRESHOLD=0.95, RESOLUTION_REVIEW_THRESHOLD=0.5):
        assert [band_for(combined=c) for c in (0.96, 0.95, 0.6, 0.49)] == ["auto", "auto", "review", "separate"]


def test_given_embeddings_are_used_and_clusters_are_transitive():
    east, north = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    candidates = [
        Candidate(key="1", name="Vela Labs", type="ORGANIZATION", embedding=east),
        Candidate(key="2", name="Vela", type="ORGANIZATION", embedding=east),
        Candidate(key="3", name="VELA LABS LTD", type="ORGANIZATION", embedding=north),
        Candidate(key="4", name="Quay Freight", type="ORGANIZATION", embedding=north),
    ]
    scores = score_pairs(candidates=candidates)
    assert {s.embedding for s in scores if {s.left, s.right} == {"1", "2"}} == {1.0}
    groups = cluster(keys=[c.key for c in candidates], scores=scores)
    assert sorted(map(sorted, groups)) == [["1", "2", "3"], ["4"]]
    against = score_pairs(candidates=candidates[:1], against=candidates[1:])
    assert [(s.left, s.right) for s in against] == [("1", "2"), ("1", "3"), ("1", "4")]


def test_bench_resolution_prints_b_cubed_for_both_bands():
    out = StringIO()
    call_command("bench_resolution", gold=str(GOLD), stdout=out)
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["mentions"] == 50 and result["gold_clusters"] == 29
    for band in ("auto", "auto_plus_review"):
        assert set(result[band]) == {"precision", "recall", "f1"}
        assert 0.0 <= result[band]["f1"] <= 1.0
    assert result["auto_plus_review"]["recall"] >= result["auto"]["recall"]
