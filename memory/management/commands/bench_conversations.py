import argparse
import contextlib
import http.client
import itertools
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import threading
import time
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from neomodel import db

from memory import services
from memory.embeddings import get_embedder
from memory.extraction.names import name_core
from memory.extraction.rules import preference_stems, preferences_same_meaning
from memory.models import SCOPES, Agent
from portal import graphdb
from portal.machine import machine
from portal.processes import celery_worker_command, celery_workers_wait, database_url, gunicorn_serving

DEV_SPLIT = "26,30,41"
ANSWERABLE = (1, 2, 3, 4)
SESSION_KEY = re.compile(r"^session_(\d+)$")
EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
APPEND_BATCH = 100
APPEND_ATTEMPTS = 5
SETTLED = ("done", "skipped", "failed", "held")
OTHER_ROLE = {"user": "assistant", "assistant": "user"}
STDERR = 2  # what the started processes print goes there, so that the JSON line stays last on stdout

# A graph the bench did not write may be someone's memory: the bench refuses it unless told.
GRAPH_NODES = "MATCH (n) RETURN count(n) AS nodes"

# Messages of the bench's people that the workers have not finished yet.
MESSAGES_UNSETTLED = """
MATCH (m:Message) WHERE m.user_id IN $user_ids AND NOT coalesce(m.extraction_status, 'pending') IN $settled
RETURN count(m) AS pending
"""

# What extraction made for one person, counted by kind.
MEMORY_COUNTS = """
CALL (){ MATCH (f:Fact {user_id: $user_id}) RETURN count(f) AS facts }
CALL (){ MATCH (p:Preference {user_id: $user_id}) RETURN count(p) AS preferences }
CALL (){ MATCH (e:Entity {user_id: $user_id}) RETURN count(e) AS entities }
CALL (){ MATCH (m:Message {user_id: $user_id}) WHERE m.held_reasons IS NOT NULL RETURN count(m) AS held_messages }
RETURN facts, preferences, entities, held_messages
"""

# Canonical entities (not merged into another), to find two that share a normalised name and type.
ENTITIES_UNMERGED = """
MATCH (e:Entity {user_id: $user_id})
WHERE NOT EXISTS { MATCH (e)-[s:SAME_AS]->() WHERE s.status IN ['auto', 'confirmed'] }
RETURN e.name AS name, e.type AS type
"""

PREFERENCES_CURRENT_ALL = """
MATCH (p:Preference {user_id: $user_id}) WHERE p.status = 'current'
RETURN p.category AS category, p.polarity AS polarity, p.topic AS topic, p.preference AS preference
ORDER BY p.uid
"""
# Two current preferences of one person and category whose topics' vectors are this close say one liking in other
# words ("horror movies" and "scary films": 0.875; "dance" and "contemporary dance", two likings: 0.765). The count
# reads the topics' own vectors, not the statements' the product compares, so it also sees what the product missed.
SAME_MEANING_TOPIC_COSINE = 0.80

# Facts about the person (subject "user") whose only source is something the assistant said.
PERSON_FACTS_FROM_ASSISTANT = """
MATCH (f:Fact {user_id: $user_id}) WHERE toLower(f.subject) = 'user'
  AND EXISTS { MATCH (f)-[:EXTRACTED_FROM]->(:Message {role: 'assistant'}) }
RETURN count(f) AS facts
"""

# Everything one bench person left in the graph, removed a batch at a time.
PERSON_DELETE = """
MATCH (n {user_id: $user_id}) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS deleted
"""


class Command(BaseCommand):
    help = ("Replay LoCoMo conversations through the HTTP API (one person each), wait for extraction, ask every "
            "answerable question through POST /api/v1/context and print evidence recall and memory hygiene "
            "as one JSON line last.")

    def add_arguments(self, parser):
        parser.add_argument("--locomo", required=True,
                            help="a directory holding LoCoMo's <id>.json files or locomo10.json")
        parser.add_argument("--conversations", default=DEV_SPLIT, help=f"comma-separated ids (default {DEV_SPLIT})")
        parser.add_argument("--url", help="a running portal to use instead of starting gunicorn and workers")
        parser.add_argument("--workers", type=int, default=2, help="Celery worker processes to start")
        parser.add_argument("--port", type=int, default=0, help="port for the started server (default: a free one)")
        parser.add_argument("--messages", type=int,
                            help="send limits.messages (the default request leaves limits out)")
        parser.add_argument("--token-budgets", default="",
                            help="also ask every question with each of these token_budget values (comma-separated, "
                                 "e.g. 200,100) and report evidence found and tokens at each under `budgets`")
        parser.add_argument("--labels", action=argparse.BooleanOptionalAction, default=True,
                            help='send each turn as "Name: text", as clients replaying a chat between people do '
                                 "(default: on)")
        parser.add_argument("--times", action=argparse.BooleanOptionalAction, default=False,
                            help="send each turn's session time as created_at (default: off, so the API stamps it)")
        parser.add_argument("--first-speaker", choices=["user", "assistant"], default="user",
                            help="the role of the conversation's first speaker (the other gets the other role)")
        parser.add_argument("--timeout", type=int, default=3600, help="seconds to wait for extraction")
        parser.add_argument("--reuse", action="store_true",
                            help="run against a Neo4j that already holds data (the bench touches only its own people)")
        parser.add_argument("--keep", action="store_true", help="keep the bench's people and their memory")
        parser.add_argument("--answers", help="write each question's results (no LoCoMo text: conversation, question "
                                              "number, category, evidence and found turn ids, tokens) to this JSON "
                                              "file, for bench_quality --paired")
        parser.add_argument("--web-embedder",
                            help="EMBEDDER for the started web server only (the workers keep this process's): "
                                 "queries by one encoder over vectors stored by another")

    def handle(self, *args, **options):
        conversations = conversations_load(directory=Path(options["locomo"]),
                                           ids=[c.strip() for c in options["conversations"].split(",") if c.strip()])
        nodes = graphdb.scalar(GRAPH_NODES)
        if nodes and not options["reuse"]:
            raise CommandError(f"Refusing to run: the Neo4j at {db.url} holds {nodes} nodes the bench did not "
                               "write. Point NEO4J_URL at an empty database or pass --reuse.")
        call_command("migrate", interactive=False, verbosity=0)
        call_command("install_labels", verbosity=0, stdout=self.stderr)

        self.retries = defaultdict(int)
        agent, token, people = _people(conversations)
        try:
            with self._stack(options) as base:
                replay = self._replay(base, token, conversations, people, options)
                answers = self._ask(base, token, conversations, people, replay["dia_ids"], options["messages"],
                                    budgets=_budgets(options["token_budgets"]))
            memory = memory_hygiene(user_ids=[s.user_id for s in people.values()], turns=replay["turns"])
        finally:
            if not options["keep"]:
                for subject in people.values():
                    while graphdb.scalar(PERSON_DELETE, {"user_id": subject.user_id}):
                        pass
                    subject.account.delete()
                agent.delete()

        if options["answers"]:
            answers_write(path=Path(options["answers"]), answers=answers, embedders=self._embedders(options))
        self.stdout.write(json.dumps({
            "benchmark": "conversations", "dataset": "locomo", "conversations": [c["id"] for c in conversations],
            "user_ids": {c: s.user_id for c, s in people.items()}, "sessions": replay["sessions"],
            "turns": replay["turns"],
            "client": {"labels": options["labels"], "times": options["times"], "first_speaker": options["first_speaker"]},
            "workers": None if options["url"] else options["workers"], "append_retries": dict(self.retries),
            "embedders": self._embedders(options),
            "request": {"limits": {"messages": options["messages"]}} if options["messages"] else "default",
            "budgets": budgets_summary(answers=answers),
            **recall_summary(answers=answers),
            "ingest_seconds": round(replay["ingest_seconds"], 3),
            "extraction_seconds": round(replay["extraction_seconds"], 3),
            "ingest_turns_per_s": round(replay["turns"] / replay["ingest_seconds"], 1),
            "extraction_turns_per_s": round(replay["turns"] / replay["extraction_seconds"], 1),
            **memory,
            "machine": machine(),
        }))

    def _embedders(self, options) -> dict | None:
        """Return which encoder stored the vectors and which embedded the questions (None for a given --url)."""
        if options["url"]:
            return None
        return {"stored": settings.EMBEDDER, "queries": options["web_embedder"] or settings.EMBEDDER}

    @contextlib.contextmanager
    def _stack(self, options):
        """Yield the API's base URL: the given one, or gunicorn and Celery workers started here and stopped after."""
        if options["url"]:
            yield options["url"].rstrip("/")
            return
        env = {**os.environ, "DATABASE_URL": database_url()}
        run = uuid.uuid4().hex[:6]
        hostnames = [f"bench-{run}-{i}@%h" for i in range(options["workers"])]
        workers = [subprocess.Popen(celery_worker_command(hostname=hostname, queues="celery,extraction"),
                                    cwd=settings.BASE_DIR, env=env, stdout=STDERR) for hostname in hostnames]
        try:
            with gunicorn_serving(port=options["port"], stdout=STDERR,
                                  env={**env, "EMBEDDER": options["web_embedder"] or settings.EMBEDDER}) as port:
                celery_workers_wait([h.replace("%h", socket.gethostname()) for h in hostnames])
                yield f"http://127.0.0.1:{port}"
        finally:
            for process in workers:
                process.send_signal(signal.SIGTERM)
            for process in workers:
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()

    def _replay(self, base, token, conversations, people, options):
        """Append every session in order, one client per person, then wait for the workers to settle."""
        dia_ids: dict[str, dict[str, str]] = {}
        errors = []

        def person(conversation):
            client = ApiClient(base, token)
            subject = people[conversation["id"]]
            mapping = dia_ids.setdefault(conversation["id"], {})
            try:
                for session in conversation["sessions"]:
                    for start in range(0, len(session["turns"]), APPEND_BATCH):
                        turns = session["turns"][start:start + APPEND_BATCH]
                        for result in self._append(client, subject.user_id, conversation, session, turns, options):
                            mapping[result["uid"]] = result["client_message_id"]
            except Exception as exc:  # reported once all clients stopped
                errors.append(exc)

        started = time.monotonic()
        threads = [threading.Thread(target=person, args=(c,)) for c in conversations]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise CommandError(f"Replay failed: {errors[0]}")
        ingested = time.monotonic()
        user_ids = [s.user_id for s in people.values()]
        while graphdb.scalar(MESSAGES_UNSETTLED, {"user_ids": user_ids, "settled": list(SETTLED)}):
            if time.monotonic() - started > options["timeout"]:
                raise CommandError(f"Extraction did not finish within {options['timeout']} s.")
            time.sleep(0.5)
        settled = time.monotonic()
        turns = sum(len(s["turns"]) for c in conversations for s in c["sessions"])
        self.stderr.write(f"replayed {turns} turns in {ingested - started:.1f} s; extraction settled after "
                          f"{settled - started:.1f} s")
        return {"dia_ids": dia_ids, "turns": turns, "sessions": sum(len(c["sessions"]) for c in conversations),
                "ingest_seconds": ingested - started, "extraction_seconds": settled - started}

    def _append(self, client, user_id, conversation, session, turns, options):
        """Append turns as the chosen client sends them; return the stored ones."""
        roles = conversation["roles"] if options["first_speaker"] == "user" else {
            speaker: OTHER_ROLE[role] for speaker, role in conversation["roles"].items()}
        messages = [{"role": roles[t["speaker"]], "client_message_id": t["dia_id"],
                     "content": f"{t['speaker']}: {t['text']}" if options["labels"] else t["text"],
                     **({"created_at": session["date"].isoformat()} if options["times"] else {})} for t in turns]
        path = f"/api/v1/conversations/{conversation['id']}-s{session['number']}/messages"
        status, body = self._post_retrying(client, path, {"user_id": user_id, "messages": messages})
        if status >= 300:
            raise CommandError(f"Append to {path} answered {status}: {body}")
        return [r for r in body["results"] if "uid" in r]

    def _post_retrying(self, client, path, payload):
        """Post an append as a careful client does: again after a busy conversation or a server error
        (client message ids make it idempotent), counting each retry by status."""
        for attempt in range(APPEND_ATTEMPTS):
            status, body = client.post(path, payload)
            if status < 500 and status != 409 or attempt == APPEND_ATTEMPTS - 1:
                return status, body
            self.retries[str(status)] += 1
            time.sleep(0.5 * 2 ** attempt)

    def _ask(self, base, token, conversations, people, dia_ids, messages_limit, budgets):
        """Ask every answerable question from a fresh session; return per question its category, hits and cost, and
        under `budgets` what it found asked again with each token budget."""
        client = ApiClient(base, token)
        answers = []
        for conversation in conversations:
            user_id = people[conversation["id"]].user_id
            mapping = dia_ids[conversation["id"]]
            session_id = f"questions-{uuid.uuid4().hex[:8]}"
            for number, question in enumerate(conversation["questions"]):
                payload = {"user_id": user_id, "session_id": session_id, "query": question["question"]}
                if messages_limit:
                    payload["limits"] = {"messages": messages_limit}
                started = time.perf_counter()
                body = _context(client, payload)
                elapsed = (time.perf_counter() - started) * 1000
                ranked, found = _found(body, mapping)
                answers.append({"conversation": conversation["id"], "question": number,
                                "category": question["category"],
                                "evidence": question["evidence"], "ranked": ranked, "found": found,
                                "tokens": body["token_count"], "ms": elapsed, "budgets": {}})
                for budget in budgets:
                    body = _context(client, {**payload, "token_budget": budget})
                    answers[-1]["budgets"][budget] = {"found": _found(body, mapping)[1], "tokens": body["token_count"]}
        return answers


def _context(client: "ApiClient", payload: dict) -> dict:
    status, body = client.post("/api/v1/context", payload)
    if status != 200:
        raise CommandError(f"Context answered {status}: {body}")
    return body


def _found(body: dict, mapping: dict[str, str]) -> tuple[list[str], list[str]]:
    """Return the turns (LoCoMo's ids) of a context's recalled messages, best first, and every turn it holds: those
    and the turns its facts and preferences came from. A message's item may hold only the sentences of it that bear
    on the question: it counts for its turn all the same."""
    ranked = [mapping[item["id"]] for item in body["items"] if item["type"] == "message" and item["id"] in mapping]
    sources = [mapping.get(uid) for item in body["items"] if item["type"] in ("fact", "preference")
               for uid in item["provenance"]["message_uids"]]
    return ranked, sorted({*ranked, *filter(None, sources)})


def _budgets(text: str) -> list[int]:
    try:
        return [int(b) for b in text.split(",") if b.strip()]
    except ValueError:
        raise CommandError(f"--token-budgets takes whole numbers separated by commas; got {text!r}.")


class ApiClient:
    """One keep-alive HTTP connection to the API with an agent token."""

    def __init__(self, base: str, token: str):
        parts = urlsplit(base)
        self.prefix = parts.path.rstrip("/")
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=120)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def post(self, path: str, payload: dict) -> tuple[int, dict]:
        self.connection.request("POST", self.prefix + path, json.dumps(payload), self.headers)
        response = self.connection.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw or b"{}")
        except ValueError:
            return response.status, {"message": raw.decode(errors="replace")[:500]}


def conversations_load(*, directory: Path, ids: list[str]) -> list[dict]:
    """Read LoCoMo conversations by id: sessions in order with their times, and the answerable questions."""
    if not directory.is_dir():
        raise CommandError(f"No LoCoMo directory at {directory}")
    raw = {}
    for path in directory.rglob("locomo10.json"):
        raw.update({str(s["sample_id"]).removeprefix("conv-"): s["conversation"] | {"qa": s["qa"]}
                    for s in json.loads(path.read_text())})
    for conversation_id in ids:
        if conversation_id not in raw:
            found = sorted(directory.rglob(f"{conversation_id}.json"))
            if not found:
                raise CommandError(f"No conversation {conversation_id} under {directory}")
            raw[conversation_id] = json.loads(found[0].read_text())
    return [_conversation(conversation_id, raw[conversation_id]) for conversation_id in ids]


def _conversation(conversation_id: str, data: dict) -> dict:
    numbers = sorted(int(m.group(1)) for key in data if (m := SESSION_KEY.match(key)) and data[key])
    sessions = [{"number": n, "date": session_time(data[f"session_{n}_date_time"]), "turns": data[f"session_{n}"]}
                for n in numbers]
    known = {t["dia_id"] for s in sessions for t in s["turns"]}
    questions = []
    for qa in data["qa"]:
        if qa.get("category") not in ANSWERABLE:
            continue
        evidence = [e for raw in qa.get("evidence", []) for e in EVIDENCE_SPLIT.split(raw) if e in known]
        if evidence:
            questions.append({"question": qa["question"], "category": qa["category"],
                              "evidence": list(dict.fromkeys(evidence))})
    return {"id": conversation_id, "sessions": sessions, "questions": questions,
            "roles": {data["speaker_a"]: "user", data["speaker_b"]: "assistant"}}


def session_time(text: str) -> datetime:
    """Parse LoCoMo's "1:56 pm on 8 May, 2023" (no zone given: read as UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def recall_summary(*, answers: list[dict]) -> dict:
    """Return evidence recall overall, per category and per conversation, tokens and latency: the share of a
    question's evidence turns found anywhere in its context (recalled messages and the turns its facts and
    preferences came from), recall@5 and @10 and any-hit@10 of the recalled messages."""
    def scores(group):
        def recall(a, k):
            return len(set(a["ranked"][:k]) & set(a["evidence"])) / len(a["evidence"])
        n = max(len(group), 1)
        return {"questions": len(group),
                "evidence_found": round(sum(_found_share(a) for a in group) / n, 4),
                "tokens": round(sum(a["tokens"] for a in group) / n, 1),
                "recall_at_5": round(sum(recall(a, 5) for a in group) / n, 4),
                "recall_at_10": round(sum(recall(a, 10) for a in group) / n, 4),
                "any_hit_at_10": round(sum(1 for a in group if set(a["ranked"][:10]) & set(a["evidence"])) / n, 4)}

    by_category, by_conversation = defaultdict(list), defaultdict(list)
    for answer in answers:
        by_category[str(answer["category"])].append(answer)
        by_conversation[answer["conversation"]].append(answer)
    latencies = sorted(a["ms"] for a in answers)
    return {
        "questions": len(answers), "recall": scores(answers),
        "recall_by_category": {c: scores(group) for c, group in sorted(by_category.items())},
        "recall_by_conversation": {c: scores(group) for c, group in by_conversation.items()},
        "tokens_per_query": round(sum(a["tokens"] for a in answers) / max(len(answers), 1), 1),
        "context_ms": {"p50": round(percentile(latencies, 50), 1), "p95": round(percentile(latencies, 95), 1)},
    }


def budgets_summary(*, answers: list[dict]) -> dict:
    """Return, per token budget the questions were asked again with, the share of their evidence found anywhere in
    the context (overall and per category) and the tokens it took."""
    summary = {}
    for budget in answers[0]["budgets"] if answers else ():
        asked = [{**answer, **answer["budgets"][budget]} for answer in answers]
        by_category = defaultdict(list)
        for answer in asked:
            by_category[str(answer["category"])].append(_found_share(answer))
        summary[str(budget)] = {
            "evidence_found": round(sum(map(_found_share, asked)) / len(asked), 4),
            "tokens": round(sum(a["tokens"] for a in asked) / len(asked), 1),
            "evidence_found_by_category": {c: round(sum(v) / len(v), 4) for c, v in sorted(by_category.items())}}
    return summary


def answers_write(*, path: Path, answers: list[dict], embedders: dict | None) -> None:
    """Write one run's answers as JSON, keyed by conversation and question number so two runs pair up."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"benchmark": "conversations", "embedders": embedders, "answers": [
        {key: answer[key] for key in ("conversation", "question", "category", "evidence", "found", "ranked", "tokens")}
        for answer in answers]}))


def answers_compare(*, reference: dict, candidate: dict, rounds: int = 10_000, seed: int = 23) -> dict:
    """Return the paired difference of evidence found (candidate minus reference, question by question) with its
    95 % bootstrap interval, overall and per category, for two answers files of the same questions."""
    def keyed(run):
        return {(a["conversation"], a["question"]): a for a in run["answers"]}

    before, after = keyed(reference), keyed(candidate)
    if before.keys() != after.keys() or any(before[k]["evidence"] != after[k]["evidence"] for k in before):
        raise CommandError("The two answers files hold different questions: run both on the same conversations.")
    rng = np.random.default_rng(seed)

    def paired(keys):
        differences = np.array([_found_share(after[k]) - _found_share(before[k]) for k in keys])
        means = differences[rng.integers(0, len(differences), (rounds, len(differences)))].mean(axis=1)
        low, high = np.percentile(means, [2.5, 97.5])
        return {"questions": len(keys), "reference": round(float(np.mean([_found_share(before[k]) for k in keys])), 4),
                "candidate": round(float(np.mean([_found_share(after[k]) for k in keys])), 4),
                "difference": round(float(differences.mean()), 4), "interval_95": [round(low, 4), round(high, 4)],
                "better": int((differences > 0).sum()), "worse": int((differences < 0).sum())}

    keys = sorted(before)
    categories = sorted({before[k]["category"] for k in keys})
    return {"benchmark": "paired", "figure": "evidence_found", "rounds": rounds,
            "embedders": {"reference": reference.get("embedders"), "candidate": candidate.get("embedders")},
            "overall": paired(keys),
            "by_category": {str(c): paired([k for k in keys if before[k]["category"] == c]) for c in categories}}


def _found_share(answer: dict) -> float:
    return len(set(answer["found"]) & set(answer["evidence"])) / len(answer["evidence"])


def percentile(ordered: list[float], p: int) -> float:
    if len(ordered) < 2:
        return ordered[0] if ordered else 0.0
    return statistics.quantiles(ordered, n=100, method="inclusive")[p - 1]


def _people(conversations: list[dict]) -> tuple[Agent, str, dict]:
    """Return an agent of the run with its token, and a person per conversation who granted it access."""
    run = uuid.uuid4().hex[:8]
    agent = Agent.objects.create(agent_id=f"bench-conv-{run}", name="bench_conversations", scopes=list(SCOPES),
                                 rate_limit_per_minute=10_000_000)
    _, token = services.agent_token_issue(agent=agent)
    people = {}
    for conversation in conversations:
        user = get_user_model().objects.create_user(username=f"bench-{run}-{conversation['id']}",
                                                    email=f"bench-{run}-{conversation['id']}@bench.invalid")
        subject = services.subject_get_or_create(user=user)
        services.grant_create(subject=subject, agent=agent)
        people[conversation["id"]] = subject
    return agent, token, people


def memory_hygiene(*, user_ids: list[str], turns: int) -> dict:
    """Count what extraction made for the bench's people, and its defects, in all and per 1,000 turns."""
    counts = defaultdict(int)
    for user_id in user_ids:
        made = graphdb.rows(MEMORY_COUNTS, {"user_id": user_id})[0]
        for kind in ("facts", "preferences", "entities", "held_messages"):
            counts[kind] += made[kind]
        keys = defaultdict(int)
        for entity in graphdb.rows(ENTITIES_UNMERGED, {"user_id": user_id}):
            keys[(entity["type"], name_core(entity["name"]) or entity["name"].lower())] += 1
        counts["duplicate_entities"] += sum(n - 1 for n in keys.values())
        current = graphdb.rows(PREFERENCES_CURRENT_ALL, {"user_id": user_id})
        counts["duplicate_current_preferences"] += len(same_meaning_pairs(current))
        counts["assistant_person_facts"] += graphdb.scalar(PERSON_FACTS_FROM_ASSISTANT, {"user_id": user_id})
    counts = dict(counts)
    return {"memory": counts, "per_1000_turns": {k: round(v * 1000 / turns, 1) for k, v in counts.items()}}


def same_meaning_pairs(preferences: list[dict]) -> list[tuple[str, str]]:
    """Return the pairs of preferences of one person that say one liking: of one category, with the same content
    words or one topic inside the other with only words of taking part added (the rule extraction keys and merges
    by), or topics whose vectors are at least SAME_MEANING_TOPIC_COSINE apart."""
    topics = [p["topic"] or p["preference"] for p in preferences]
    vectors = get_embedder().embed(topics) if topics else []
    stems = [preference_stems(topic) for topic in topics]
    pairs = []
    for i, j in itertools.combinations(range(len(preferences)), 2):
        if preferences[i]["category"] != preferences[j]["category"]:
            continue
        cosine = float(vectors[i] @ vectors[j])
        if preferences_same_meaning(stems[i], stems[j]) or cosine >= SAME_MEANING_TOPIC_COSINE:
            pairs.append((topics[i], topics[j]))
    return pairs
