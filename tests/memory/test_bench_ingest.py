"""bench_ingest runs on a LoCoMo-shaped conversation and leaves nothing behind."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from neomodel import db

pytestmark = pytest.mark.django_db

CONVERSATION = {
    "speaker_a": "Caroline", "speaker_b": "Melanie",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "I work at Acme Corp now."},
                  {"speaker": "Melanie", "dia_id": "D1:2", "text": "Nice! I live in Porto."}],
    "session_2_date_time": "10:00 am on 9 May, 2023",
    "session_2": [{"speaker": "Caroline", "dia_id": "D2:1", "text": "I moved to Lisbon."},
                  {"speaker": "Melanie", "dia_id": "D2:2", "text": "Lisbon is lovely."}],
}


def test_bench_ingest_prints_turns_per_second_and_deletes_its_person(tmp_path):
    path = tmp_path / "26.json"
    path.write_text(json.dumps(CONVERSATION))
    out = StringIO()
    call_command("bench_ingest", conversation=str(path), turns=3, stdout=out)
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["turns"] == 3 and result["workers"] == 0
    assert result["ingest_turns_per_s"] > 0 and result["extraction_turns_per_s"] > 0
    assert db.cypher_query("MATCH (n) WHERE n.user_id IS NOT NULL RETURN count(n)")[0][0][0] == 0
