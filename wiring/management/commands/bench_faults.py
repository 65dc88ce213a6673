"""Kill Neo4j, the broker and a worker under live load and count what accepted work was lost."""

import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memory import services
from memory.models import SCOPES, Agent
from portal import graphdb
from portal.exceptions import TRANSIENT
from portal.machine import machine
from portal.outbox import work_redispatch
from portal.processes import celery_worker_command, free_port, gunicorn_serving, port_listening

ROOT = Path(settings.BASE_DIR)
NEO4J = ROOT / "tools" / "neo4j" / "neo4j.sh"
INNER = "BENCH_FAULTS_STACK"  # set in the environment of the run that the command starts on its own stack
PLACES = ["Lisbon", "Porto", "Braga", "Faro", "Evora", "Coimbra", "Aveiro", "Leiria", "Viseu", "Tomar", "Sintra",
          "Cascais", "Setubal", "Beja", "Guarda", "Viana", "Chaves", "Lagos", "Tavira", "Nazare"]

# Per conversation: one FIRST_MESSAGE, a NEXT_MESSAGE chain through every message, seqs 1..n.
CHAINS = """
MATCH (c:Conversation {user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WITH c, count(m) AS messages, collect(m.seq) AS seqs
OPTIONAL MATCH (c)-[:FIRST_MESSAGE]->(first:Message)
WITH c, messages, seqs, collect(first) AS firsts
OPTIONAL MATCH p = (head)-[:NEXT_MESSAGE*0..]->(last)
WHERE size(firsts) = 1 AND head = firsts[0] AND NOT (last)-[:NEXT_MESSAGE]->()
RETURN c.session_id AS session, messages, size(firsts) AS firsts, max(length(p)) + 1 AS walked,
       [s IN seqs WHERE s IS NOT NULL] AS seqs
"""
# A link written twice by two runs of one extraction shows as more links than linked nodes.
MESSAGES = """
MATCH (m:Message {user_id: $user_id})
RETURN m.client_id AS client_id, m.extraction_status AS status,
       COUNT { (m)-[:MENTIONS]->() } - COUNT { MATCH (m)-[:MENTIONS]->(e) RETURN DISTINCT e }
       + COUNT { (m)<-[:EXTRACTED_FROM]-() } - COUNT { MATCH (m)<-[:EXTRACTED_FROM]-(n) RETURN DISTINCT n } AS doubled
"""
ENTITY_NAMES = "MATCH (e:Entity {user_id: $user_id}) RETURN e.name AS name, count(*) AS copies"


class Command(BaseCommand):
    help = ("Repeat the Neo4j-kill, broker-outage and worker-kill runs against a stack of the command's own "
            "(Neo4j, two redis-servers, gunicorn, a Celery worker) and print accepted-but-lost, duplicates, "
            "stuck-pending and chain breaks, which must all be 0. JSON line last.")

    def add_arguments(self, parser):
        parser.add_argument("--appends", type=int, default=240, help="appends per run (split over the clients)")
        parser.add_argument("--clients", type=int, default=4)
        parser.add_argument("--neo4j-home", default=str(ROOT / "var" / "neo4j-faults"),
                            help="the bench's own Neo4j data (wiped at start)")
        parser.add_argument("--neo4j-port", type=int, default=0, help="its Bolt port (default: a free one)")
        parser.add_argument("--seed", type=int, default=14)

    def handle(self, *args, **options):
        if os.environ.get(INNER) == "1":
            return self._runs(options)
        home, port = Path(options["neo4j_home"]), options["neo4j_port"] or free_port()
        if home.name != "neo4j-faults" and not (home / "bench-faults").exists():
            raise CommandError("--neo4j-home must be the bench's own directory (named neo4j-faults): it is wiped.")
        if port_listening(port):
            raise CommandError(f"Something already listens on {port}: the bench runs its own Neo4j only.")
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        (home / "bench-faults").touch()
        work = ROOT / "var" / "bench-faults"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        app_port, broker_port = free_port(), free_port()
        env = {**os.environ, INNER: "1", "NEO4J_HOME": str(home), "NEO4J_BOLT_PORT": str(port),
               "NEO4J_PAGECACHE": "128m", "NEO4J_HEAP": "512m", "NEO4J_URL": f"bolt://neo4j:neo4j@127.0.0.1:{port}",
               "REDIS_URL": f"redis://127.0.0.1:{app_port}/0", "CELERY_BROKER_URL": f"redis://127.0.0.1:{broker_port}/0",
               "BENCH_FAULTS_BROKER_PORT": str(broker_port), "BENCH_FAULTS_DIR": str(work),
               "DATABASE_URL": f"sqlite:///{work / 'portal.sqlite3'}", "EXTRACTOR": "offline",
               "WORK_DISPATCH_DELAY_SECONDS": "2", "EXTRACTION_CLAIM_SECONDS": "10"}
        app_redis = self._redis(app_port, work / "app")
        try:
            neo4j = subprocess.run([NEO4J, "start"], env=env, capture_output=True, text=True, timeout=300)
            if neo4j.returncode:
                raise CommandError(f"Neo4j did not start: {neo4j.stderr or neo4j.stdout}")
            manage = [sys.executable, str(ROOT / "manage.py")]
            for step in (["migrate", "--noinput", "-v", "0"], ["install_labels", "-v", "0"]):
                subprocess.run(manage + step, env=env, cwd=ROOT, check=True)
            inner = subprocess.run(manage + ["bench_faults", "--appends", str(options["appends"]), "--clients",
                                             str(options["clients"]), "--seed", str(options["seed"])],
                                   env=env, cwd=ROOT)
            if inner.returncode:
                raise CommandError(f"the runs failed (exit {inner.returncode})")
        finally:
            subprocess.run([NEO4J, "stop"], env=env, capture_output=True, timeout=300)
            app_redis.kill()
            app_redis.wait()

    # --- the runs, inside the bench's own stack ---------------------------------------------------

    def _runs(self, options):
        self.rng = random.Random(options["seed"])
        self.work = Path(os.environ["BENCH_FAULTS_DIR"])
        self.broker_port = int(os.environ["BENCH_FAULTS_BROKER_PORT"])
        self.broker = self._redis(self.broker_port, self.work / "broker")
        self.token, self.user_id = self._person()
        started = time.monotonic()
        try:
            with gunicorn_serving() as port:
                self.port = port
                self.worker = self._worker()
                try:
                    runs = {"neo4j_kill": self._neo4j_kill_run(options),
                            "broker_outage": self._broker_outage_run(options),
                            "worker_kill": self._worker_kill_run(options)}
                finally:
                    self._worker_stop(self.worker)
        finally:
            self.broker.kill()
        totals = {key: sum(run[key] for run in runs.values())
                  for key in ("accepted_but_lost", "duplicates", "stuck_pending", "chain_breaks", "server_errors")}
        for name, run in runs.items():
            self.stdout.write(f"{name:<14} " + "  ".join(f"{k} {v}" for k, v in run.items()))
        self.stdout.write(json.dumps({"runs": runs, **totals, "seconds": round(time.monotonic() - started, 1),
                                      "appends_per_run": options["appends"], "clients": options["clients"],
                                      "machine": machine()}))
        if any(totals.values()):
            raise CommandError(f"Accepted work was lost, doubled, stuck or broken: {totals}")

    def _person(self) -> tuple[str, str]:
        user = get_user_model().objects.create_user(username="bench-faults", email="bench-faults@example.com")
        subject = services.subject_get_or_create(user=user)
        agent = Agent.objects.create(agent_id="bench-faults", name="Bench faults", scopes=list(SCOPES),
                                     rate_limit_per_minute=1_000_000)
        services.grant_create(subject=subject, agent=agent)
        _, secret = services.agent_token_issue(agent=agent)
        return secret, subject.user_id

    def _neo4j_kill_run(self, options) -> dict:
        """Append while Neo4j is SIGKILLed twice and restarted; every refused append is retried until accepted."""
        def fault(progress):
            for at in (0.25, 0.6):
                progress.wait_for(at)
                pid = int((Path(os.environ["NEO4J_HOME"]) / "launcher.pid").read_text())
                os.kill(pid, signal.SIGKILL)
                while Path(f"/proc/{pid}").exists() or port_listening(int(os.environ["NEO4J_BOLT_PORT"])):
                    time.sleep(0.1)  # gone for good, or the launcher would take the dying one for a running Neo4j
                time.sleep(1)
                # The launcher gives up waiting after 120 s; recovery on a loaded machine may take longer.
                subprocess.run([NEO4J, "start"], capture_output=True, timeout=300)
                self._rows("RETURN 1 AS up")
        return self._run("k", options, fault)

    def _broker_outage_run(self, options) -> dict:
        """Append while the broker is down for a while; its tasks are re-dispatched by the Beat task's function."""
        def fault(progress):
            progress.wait_for(0.2)
            self.broker.kill()
            self.broker.wait()
            progress.wait_for(0.7)
            self.broker = self._redis(self.broker_port, self.work / "broker")
        return self._run("b", options, fault)

    def _worker_kill_run(self, options) -> dict:
        """SIGKILL the worker (its whole process group) while it extracts, then start another."""
        def fault(progress):
            for at in (0.3, 0.7):
                progress.wait_for(at)
                os.killpg(self.worker.pid, signal.SIGKILL)
                self.worker.wait()
                self.worker = self._worker()
        return self._run("w", options, fault)

    def _run(self, tag: str, options, fault) -> dict:
        total, clients = options["appends"], options["clients"]
        progress = Progress(total)
        tally = Tally()

        def client(n: int):
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            for i in range(n, total, clients):
                self._append(connection, tag=tag, i=i, progress=progress, tally=tally)
                progress.advance()

        failures = []

        def inject():
            try:
                fault(progress)
            except Exception as exc:  # reported after the clients finish, so the run fails loudly
                failures.append(exc)
                progress.release()

        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        faults = threading.Thread(target=inject)
        for thread in threads + [faults]:
            thread.start()
        for thread in threads + [faults]:
            thread.join()
        if failures:
            raise CommandError(f"the fault could not be injected: {failures[0]!r}")
        return {**self._settle(tag, tally.accepted), "accepted": len(tally.accepted),
                "accepted_extraction_pending": len(tally.pending),
                "refused_then_retried": sum(v for k, v in tally.codes.items() if k not in (200, 201)),
                "server_errors": tally.codes[500]}

    def _append(self, connection, *, tag: str, i: int, progress: "Progress", tally: "Tally") -> None:
        """Append message i of the run until it is accepted (stored, or a duplicate of a stored one), retrying
        whatever else is answered for five minutes or until the run fails."""
        client_id = f"{tag}-{i}"
        body = json.dumps({"user_id": self.user_id, "messages": [{
            "role": "user", "content": f"I flew to {PLACES[i % len(PLACES)]} on trip {tag}{i}.",
            "client_message_id": client_id}]})
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not progress.failed:
            try:
                connection.request("POST", f"/api/v1/conversations/{tag}-s{i % 2}/messages", body, {
                    "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
                response = connection.getresponse()
                status, payload = response.status, response.read()
            except (OSError, http.client.HTTPException):
                connection.close()
                status, payload = "connection", b""
            result = json.loads(payload)["results"][0] if status in (200, 201) else None
            if tally.answered(client_id, status=status, result=result):
                return
            time.sleep(0.2 + self.rng.random() * 0.3)

    def _settle(self, tag: str, accepted: set[str]) -> dict:
        """Run the Beat task's function until nothing waits (or two minutes pass), then count."""
        deadline, redispatched = time.monotonic() + 120, 0
        while time.monotonic() < deadline:
            statuses = Counter(row["status"] for row in self._messages(tag))
            if not statuses["pending"]:
                break
            try:
                redispatched += work_redispatch(delay_seconds=2)["extractions"]
            except (*TRANSIENT, OSError):
                pass  # a store still recovering: the next round dispatches it
            time.sleep(2)
        messages = self._messages(tag)
        stored = Counter(row["client_id"] for row in messages)
        names = {row["name"]: row["copies"] for row in self._rows(ENTITY_NAMES)}
        chains = [row for row in self._rows(CHAINS) if row["session"].startswith(f"{tag}-")]
        return {
            "accepted_but_lost": len(accepted - set(stored)),
            "duplicates": sum(n - 1 for n in stored.values() if n > 1)
            + sum(row["doubled"] for row in messages) + sum(n - 1 for n in names.values() if n > 1),
            "stuck_pending": sum(1 for row in messages if row["status"] != "done"),
            "chain_breaks": sum(1 for row in chains if row["firsts"] != 1 or row["walked"] != row["messages"]
                                or sorted(row["seqs"]) != list(range(1, row["messages"] + 1))),
            "redispatched": redispatched,
        }

    def _messages(self, tag: str) -> list[dict]:
        return [row for row in self._rows(MESSAGES) if row["client_id"].startswith(f"{tag}-")]

    def _rows(self, query: str) -> list[dict]:
        for _ in range(600):  # Neo4j may still be recovering from a kill
            try:
                return graphdb.rows(query, {"user_id": self.user_id})
            except Exception:
                time.sleep(1)
        raise CommandError("Neo4j did not come back")

    # --- the stack's processes --------------------------------------------------------------------

    def _redis(self, port: int, directory: Path) -> subprocess.Popen:
        directory.mkdir(parents=True, exist_ok=True)
        proc = subprocess.Popen([shutil.which("redis-server"), "--bind", "127.0.0.1", "--port", str(port), "--save",
                                 "", "--appendonly", "no", "--dir", str(directory)], stdout=subprocess.DEVNULL)
        client = redis.Redis(port=port)
        for _ in range(100):
            try:
                client.ping()
                return proc
            except redis.ConnectionError:
                time.sleep(0.05)
        raise CommandError("redis-server did not start")

    def _worker(self) -> subprocess.Popen:
        log = open(self.work / "worker.log", "a")
        command = celery_worker_command(hostname=f"bench-faults-{time.monotonic_ns()}@%h",
                                        queues="celery,extraction,maintenance", concurrency=2)
        return subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def _worker_stop(self, worker: subprocess.Popen) -> None:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)


class Tally:
    """What the clients were answered: every status, and which appends were accepted (or left pending)."""

    def __init__(self):
        self.codes, self.accepted, self.pending, self.lock = Counter(), set(), set(), threading.Lock()

    def answered(self, client_id: str, *, status, result: dict | None) -> bool:
        """Count an answer; return whether it accepted the append."""
        with self.lock:
            self.codes[status] += 1
            if result is None or not (result["stored"] or result.get("reason") == "duplicate"):
                return False
            self.accepted.add(client_id)
            if result.get("extraction") == "pending":
                self.pending.add(client_id)
            return True


class Progress:
    """How many appends the clients have finished; the fault thread waits for a share of them."""

    def __init__(self, total: int):
        self.total, self.done, self.failed, self.cond = total, 0, False, threading.Condition()

    def advance(self) -> None:
        with self.cond:
            self.done += 1
            self.cond.notify_all()

    def wait_for(self, share: float) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.done >= share * self.total)

    def release(self) -> None:
        """Let the clients stop retrying: the run has failed."""

        with self.cond:
            self.failed = True
