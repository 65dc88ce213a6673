"""bench_conversations on a tiny LoCoMo-shaped conversation, against the suite's own stores."""

import json
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from neomodel import db

from memory.models import Agent

CONVERSATION = {
    "speaker_a": "Ada", "speaker_b": "Ben",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ada", "dia_id": "D1:1", "text": "Hi Ben! I work at Acme Corp as a welder."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice! How is the weather over there?"},
        {"speaker": "Ada", "dia_id": "D1:3", "text": "Rainy. My tortoise Shelby ate a whole cucumber yesterday."},
        {"speaker": "Ben", "dia_id": "D1:4", "text": "Ha, that is a hungry pet."},
    ],
    "session_2_date_time": "10:37 am on 27 June, 2023",
    "session_2": [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "Long time! What have you been up to?"},
        {"speaker": "Ada", "dia_id": "D2:2", "text": "I climbed Mount Kilimanjaro with my sister Clara."},
        {"speaker": "Ben", "dia_id": "D2:3", "text": "Wow, congratulations on the summit."},
        {"speaker": "Ada", "dia_id": "D2:4", "text": "Thanks. Next I want to learn the cello."},
    ],
    "session_3_date_time": "9:00 am on 1 July, 2023",
    "qa": [
        {"question": "What did Ada's tortoise Shelby eat?", "answer": "a cucumber", "evidence": ["D1:3"],
         "category": 1},
        {"question": "Which mountain did Ada climb, and with whom?", "answer": "Kilimanjaro, with Clara",
         "evidence": ["D2:2; D9:9"], "category": 4},
        {"question": "What instrument did Ben learn?", "evidence": ["D2:4"], "category": 5,
         "adversarial_answer": "the cello"},
        {"question": "What is Ada's favourite colour?", "answer": "unknown", "evidence": [], "category": 1},
    ],
}


@pytest.fixture
def locomo(tmp_path):
    (tmp_path / "99.json").write_text(json.dumps(CONVERSATION))
    return tmp_path


def test_refuses_a_graph_it_did_not_write(locomo, transactional_db):
    with pytest.raises(CommandError, match="Refusing to run"):
        call_command("bench_conversations", locomo=str(locomo), conversations="99")


def test_replays_asks_and_reports_one_json_line(locomo, transactional_db, granted, tmp_path):
    subject, _, client = granted
    out = StringIO()
    call_command("bench_conversations", locomo=str(locomo), conversations="99", reuse=True, keep=True, times=True,
                 answers=str(tmp_path / "answers.json"), stdout=out)
    line = json.loads(out.getvalue().strip().splitlines()[-1])

    assert line["conversations"] == ["99"] and line["sessions"] == 2 and line["turns"] == 8
    assert line["client"] == {"labels": True, "times": True, "first_speaker": "user"}
    assert all(isinstance(n, int) and n > 0 for n in line["append_retries"].values())
    assert line["questions"] == 2  # the adversarial one and the one without evidence are left out
    assert sorted(line["recall_by_category"]) == ["1", "4"] and list(line["recall_by_conversation"]) == ["99"]
    assert sum(c["questions"] for c in line["recall_by_category"].values()) == line["questions"]
    for scores in [line["recall"], *line["recall_by_category"].values()]:
        assert set(scores) == {"questions", "evidence_found", "tokens", "recall_at_5", "recall_at_10", "any_hit_at_10"}
        assert 0 <= scores["recall_at_5"] <= scores["recall_at_10"] <= scores["any_hit_at_10"] <= 1
        assert scores["recall_at_10"] <= scores["evidence_found"] <= 1
    assert line["recall"]["recall_at_10"] == 1.0  # each question names its turn's own rare words
    assert line["recall"]["recall_at_5"] == pytest.approx(
        sum(c["recall_at_5"] * c["questions"] for c in line["recall_by_category"].values()) / 2, abs=1e-4)
    assert line["tokens_per_query"] > 0 and 0 < line["context_ms"]["p50"] <= line["context_ms"]["p95"]
    assert line["ingest_turns_per_s"] == pytest.approx(8 / line["ingest_seconds"], rel=0.02, abs=0.1)
    assert line["extraction_turns_per_s"] == pytest.approx(8 / line["extraction_seconds"], rel=0.02, abs=0.1)
    assert line["extraction_seconds"] >= line["ingest_seconds"]
    assert line["embedders"] == {"stored": settings.EMBEDDER, "queries": settings.EMBEDDER}
    assert set(line["machine"]) == {"cpus", "memory_gib", "load_1m", "python_ms"} and line["machine"]["python_ms"] > 0
    written = json.loads((tmp_path / "answers.json").read_text())
    assert written["embedders"] == line["embedders"]
    assert [(a["conversation"], a["question"], a["category"], a["evidence"]) for a in written["answers"]] == [
        ("99", 0, 1, ["D1:3"]), ("99", 1, 4, ["D2:2"])]  # numbered among the answerable questions, no text
    assert all(set(a) == {"conversation", "question", "category", "evidence", "found", "ranked", "tokens"}
               for a in written["answers"])

    person = line["user_ids"]["99"]
    graph = {label: db.cypher_query(f"MATCH (n:{label} {{user_id: $u}}) RETURN count(n)", {"u": person})[0][0][0]
             for label in ("Message", "Fact", "Preference", "Entity")}
    assert graph["Message"] == 8
    pending, _ = db.cypher_query("MATCH (m:Message {user_id: $u}) WHERE m.extraction_status = 'pending' "
                                 "RETURN count(m)", {"u": person})
    assert pending[0][0] == 0
    memory = line["memory"]
    assert (memory["facts"], memory["preferences"], memory["entities"]) == (
        graph["Fact"], graph["Preference"], graph["Entity"])
    assert memory["facts"] >= 1 and memory["entities"] >= 1
    assert set(line["per_1000_turns"]) == set(memory)
    for key, value in memory.items():
        assert line["per_1000_turns"][key] == round(value * 1000 / 8, 1)
    said, _ = db.cypher_query("MATCH (m:Message {user_id: $u, client_id: 'D2:2'}) RETURN m.created_at, m.content, "
                              "m.speaker", {"u": person})
    assert said[0][0].to_native().isoformat() == "2023-06-27T10:37:00+00:00"
    assert said[0][1:] == ["Ada: I climbed Mount Kilimanjaro with my sister Clara.", "Ada"]


def test_removes_its_people_unless_kept(locomo, transactional_db):
    out = StringIO()
    call_command("bench_conversations", locomo=str(locomo), conversations="99", reuse=True, workers=1, stdout=out)
    line = json.loads(out.getvalue().strip().splitlines()[-1])
    remaining, _ = db.cypher_query("MATCH (n {user_id: $u}) RETURN count(n)", {"u": line["user_ids"]["99"]})
    assert remaining[0][0] == 0
    assert not Agent.objects.filter(name="bench_conversations").exists()
