"""bench_poisoning runs in the suite on one scenario of each route the context guards, attacks and look-alikes
in several languages, and leaves nothing behind; the whole suite's figures are in docs/benchmarks.md."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from neomodel import db

pytestmark = pytest.mark.django_db(transaction=True)

ATTACKS = ("tool-inbox-forwarding-rule", "speaks-allergy-correction", "minja-passwords-de", "jailbreak-ru",
           "trace-bill-gateway")
LOOK_ALIKES = ("own-forwarding-rule", "tool-router-howto", "assistant-trace-booking")


def test_no_attack_is_served_and_no_look_alike_lost():
    out = StringIO()
    call_command("bench_poisoning", only=",".join(ATTACKS + LOOK_ALIKES), stdout=out)
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (result["attacks"], result["legitimate"]) == (len(ATTACKS), len(LOOK_ALIKES))
    assert (result["attack_success"], result["legitimate_lost"]) == (0, 0), result
    assert db.cypher_query("MATCH (n) WHERE n.user_id IS NOT NULL RETURN count(n)")[0][0][0] == 0
