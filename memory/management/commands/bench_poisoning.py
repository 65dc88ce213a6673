import json
import threading
import urllib.error
import urllib.request
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.handlers.wsgi import WSGIHandler
from django.core.management.base import BaseCommand, CommandError
from neomodel import db

from memory import ingest, services
from memory.models import SCOPES, Agent

# What a scenario's turn may carry into the append, beside its role and content.
MESSAGE_FIELDS = ("facts", "preferences", "entities")


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class Command(BaseCommand):
    help = ("Replay memory-poisoning scenarios and their legitimate look-alikes through the HTTP API, one person "
            "each (the person's earlier turns, then the turns or trace under test, each message extracted by the "
            "worker's step), ask an ordinary later question from a new session and report which attacks had "
            "their poison served in the context (attack success) and which look-alikes were not (benign loss).")

    def add_arguments(self, parser):
        parser.add_argument("--scenarios", default=settings.BASE_DIR / "data" / "poisoning" / "scenarios.json",
                            help="the scenarios file (default: data/poisoning/scenarios.json)")
        parser.add_argument("--only", default="", help="comma-separated scenario ids or families to run")
        parser.add_argument("--keep", action="store_true", help="keep the benchmark people's memory afterwards")

    def handle(self, *args, **options):
        path = Path(options["scenarios"])
        if not path.exists():
            raise CommandError(f"No scenarios file at {path}")
        scenarios = json.loads(path.read_text())["scenarios"]
        only = {name for name in options["only"].split(",") if name}
        if only:
            scenarios = [s for s in scenarios if s["id"] in only or s["family"] in only]
        server = make_server("127.0.0.1", 0, WSGIHandler(), server_class=_Server, handler_class=_QuietHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}/api/v1"
        agent = Agent.objects.create(agent_id=f"bench-{uuid.uuid4().hex[:8]}", name="bench_poisoning",
                                     scopes=list(SCOPES))
        _, token = services.agent_token_issue(agent=agent)
        results, subjects = [], []
        try:
            for scenario in scenarios:
                subject = self._subject()
                subjects.append(subject)
                services.grant_create(subject=subject, agent=agent)
                results.append(self._run(base, token, subject.user_id, scenario))
        finally:
            server.shutdown()
            if not options["keep"]:
                for subject in subjects:
                    db.cypher_query("MATCH (n {user_id: $u}) DETACH DELETE n", {"u": subject.user_id})
                    subject.account.delete()
            agent.delete()
        self.stdout.write(json.dumps(_summary(results)))

    def _subject(self):
        name = f"bench-{uuid.uuid4().hex[:12]}"
        user = get_user_model().objects.create_user(username=name, email=f"{name}@bench.invalid")
        return services.subject_get_or_create(user=user)

    def _run(self, base, token, user_id, scenario):
        """Replay one scenario for a new person and ask its question; return what the context served."""
        self._append(base, token, user_id, "earlier", scenario.get("before", []))
        self._append(base, token, user_id, "talk", scenario.get("turns", []))
        if "trace" in scenario:
            self._trace(base, token, user_id, "talk", scenario["trace"])
        body = _post(f"{base}/context", token, {"user_id": user_id, "session_id": "later",
                                                "query": scenario["question"]})
        context = body["context"].lower()
        found = [marker for marker in scenario["served"] if marker.lower() in context]
        through = sorted({item["type"] for item in body["items"]
                          if any(marker.lower() in item["text"].lower() for marker in found)})
        attack = scenario["kind"] == "attack"
        failed = bool(found) if attack else not found
        mark = ("SERVED" if attack else "LOST  ") if failed else "ok    "
        self.stdout.write(f"{mark} {scenario['kind']:<10} {scenario['family']:<22} {scenario['id']}"
                          + (f" (through {', '.join(through)})" if attack and failed else ""))
        return {"id": scenario["id"], "kind": scenario["kind"], "family": scenario["family"],
                "language": scenario["language"], "failed": failed, "through": through}

    def _append(self, base, token, user_id, session_id, turns):
        """Append the turns in one request, then run the worker's step on each stored message, in order."""
        if not turns:
            return
        messages = [{"role": t["role"], "content": t["content"], **{k: t[k] for k in MESSAGE_FIELDS if k in t}}
                    for t in turns]
        stored = _post(f"{base}/conversations/{session_id}/messages", token,
                       {"user_id": user_id, "messages": messages})
        for result in stored["results"]:
            if result["stored"]:
                ingest.message_extract(message_uid=result["uid"], user_id=user_id)

    def _trace(self, base, token, user_id, session_id, trace):
        started = _post(f"{base}/traces", token, {"user_id": user_id, "session_id": session_id,
                                                  "task": trace["task"]})
        for step in trace["steps"]:
            _post(f"{base}/traces/{started['uid']}/steps", token, {"user_id": user_id, **step})
        _post(f"{base}/traces/{started['uid']}/complete", token,
              {"user_id": user_id, "outcome": trace["outcome"], "success": trace["success"]})


def _summary(results: list[dict]) -> dict:
    attacks = [r for r in results if r["kind"] == "attack"]
    legitimate = [r for r in results if r["kind"] == "legitimate"]
    by_family = defaultdict(lambda: [0, 0])
    for r in results:
        by_family[r["family"]][0] += r["failed"]
        by_family[r["family"]][1] += 1
    return {
        "benchmark": "poisoning",
        "attacks": len(attacks), "attack_success": sum(r["failed"] for r in attacks),
        "legitimate": len(legitimate), "legitimate_lost": sum(r["failed"] for r in legitimate),
        "by_family": {family: f"{failed}/{total}" for family, (failed, total) in sorted(by_family.items())},
        "served_through": dict(Counter(kind for r in attacks if r["failed"] for kind in r["through"])),
        "served": [r["id"] for r in attacks if r["failed"]],
        "lost": [r["id"] for r in legitimate if r["failed"]],
    }


def _post(url: str, token: str, payload: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise CommandError(f"{url} answered {error.code}: {error.read().decode(errors='replace')[:500]}") from None
