"""bench_poisoning runs in the suite on one scenario of each route the context guards, attacks and look-alikes
in several languages, and leaves nothing behind; the whole suite's figures are in docs/benchmarks.md."""

import json
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from neomodel import db

pytestmark = pytest.mark.django_db(transaction=True)

ATTACKS = ("tool-inbox-forwarding-rule", "speaks-allergy-correction", "minja-passwords-de", "jailbreak-ru",
           "trace-bill-gateway", "swap-customer-number-de", "sync-merged-contacts-json")
LOOK_ALIKES = ("own-forwarding-rule", "tool-router-howto", "assistant-trace-booking", "confirm-email-fr")


def _last_line(*args, **options) -> dict:
    out = StringIO()
    call_command("bench_poisoning", *args, stdout=out, **options)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_no_attack_is_served_and_no_look_alike_lost_and_each_family_is_measured_left_out():
    result = _last_line(only=",".join(ATTACKS + LOOK_ALIKES), rotation=True)
    assert (result["attacks"], result["legitimate"]) == (len(ATTACKS), len(LOOK_ALIKES))
    assert (result["attack_success"], result["legitimate_lost"]) == (0, 0), result
    left_out = result["left_out"]
    assert (left_out["attacks"], left_out["legitimate"]) == (len(ATTACKS), len(LOOK_ALIKES))
    assert {"mean_attack_success", "mean_legitimate_lost"} <= set(left_out)
    assert db.cypher_query("MATCH (n) WHERE n.user_id IS NOT NULL RETURN count(n)")[0][0][0] == 0


def test_the_shipped_weights_are_those_fitted_on_every_family_of_the_suite():
    fitted = _last_line(fit=True)
    assert fitted["shipped"], fitted["weights"]
    scenarios = json.loads((settings.BASE_DIR / "data" / "poisoning" / "scenarios.json").read_text())["scenarios"]
    assert {s["family"] for s in scenarios if s["kind"] == "attack"} <= set(fitted["left_out_by_family"])
