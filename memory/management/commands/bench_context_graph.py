import json
import threading
import urllib.request
import uuid
from collections import defaultdict
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from socketserver import ThreadingMixIn

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.handlers.wsgi import WSGIHandler
from django.core.management.base import BaseCommand, CommandError

from memory import ingest, services
from memory.models import SCOPES, Agent
from portal import graphdb


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class Command(BaseCommand):
    help = ("Replay context-graph scenarios through the HTTP API as one user each, ask every query through "
            "POST /api/v1/context and grade it by whether the ground truth appears in the returned context.")

    def add_arguments(self, parser):
        parser.add_argument("--scenarios", default=settings.BASE_DIR / "data" / "context_graph" / "scenarios.json",
                            help="scenarios.json of the context-graph benchmark (default: the copy in data/)")
        parser.add_argument("--mode", choices=["triples", "text"], default="triples",
                            help="triples: facts sent as explicit memory; text: only the text, through the extractor")
        parser.add_argument("--token-budget", type=int, default=28)
        parser.add_argument("--keep", action="store_true", help="keep the benchmark users' memory afterwards")

    def handle(self, *args, **options):
        path = Path(options["scenarios"])
        if not path.exists():
            raise CommandError(f"No scenarios file at {path}")
        scenarios = json.loads(path.read_text())
        server = make_server("127.0.0.1", 0, WSGIHandler(), server_class=_Server, handler_class=_QuietHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}/api/v1"
        agent = Agent.objects.create(agent_id=f"bench-{uuid.uuid4().hex[:8]}", name="bench_context_graph",
                                     scopes=list(SCOPES))
        _, token = services.agent_token_issue(agent=agent)
        results, subjects = [], []
        try:
            for scenario in scenarios:
                subject = self._subject()
                subjects.append(subject)
                services.grant_create(subject=subject, agent=agent)
                results += self._replay(base, token, subject.user_id, scenario, options)
        finally:
            server.shutdown()
            if not options["keep"]:
                for subject in subjects:
                    graphdb.run("MATCH (n {user_id: $u}) DETACH DELETE n", {"u": subject.user_id})
                    subject.account.delete()
            agent.delete()

        by_type = defaultdict(list)
        for r in results:
            by_type[r["query_type"]].append(r["correct"])
        summary = {
            "benchmark": "context_graph", "mode": options["mode"], "token_budget": options["token_budget"],
            "queries": len(results), "correct": sum(r["correct"] for r in results),
            "accuracy": round(sum(r["correct"] for r in results) / max(len(results), 1), 4),
            "by_type": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_type.items())},
            "avg_context_tokens": round(sum(r["tokens"] for r in results) / max(len(results), 1), 1),
        }
        self.stdout.write(json.dumps(summary))

    def _subject(self):
        name = f"bench-{uuid.uuid4().hex[:12]}"
        user = get_user_model().objects.create_user(username=name, email=f"{name}@bench.invalid")
        return services.subject_get_or_create(user=user)

    def _replay(self, base, token, user_id, scenario, options):
        results = []
        for turn in scenario["turns"]:
            if turn["turn_type"] == "query":
                body = _post(f"{base}/context", token, {
                    "user_id": user_id, "session_id": f"{scenario['name']}-questions", "query": turn["text"],
                    "token_budget": options["token_budget"],
                })
                correct = turn["ground_truth"].lower() in body["context"].lower()
                results.append({"query_type": turn["query_type"], "correct": correct, "tokens": body["token_count"]})
                mark = "ok  " if correct else "MISS"
                self.stdout.write(f"{mark} [{turn['query_type']}] {turn['text']} -> {body['context']!r}")
                continue
            message = {"role": "user", "content": turn["text"]}
            if options["mode"] == "triples" and turn["turn_type"] == "fact":
                message["facts"] = [{"subject": turn["subject"], "predicate": turn["predicate"],
                                     "object": turn["object"]}]
            stored = _post(f"{base}/conversations/{scenario['name']}/messages", token,
                           {"user_id": user_id, "messages": [message]})
            # Run the worker's step now, in order, so each query sees everything said before it.
            for result in stored["results"]:
                if result["stored"]:
                    ingest.message_extract(message_uid=result["uid"], user_id=user_id)
        return results


def _post(url: str, token: str, payload: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())
