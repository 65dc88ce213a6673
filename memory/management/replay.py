"""Replaying scripted conversations through the HTTP API, as benchmarks that grade what a context serves do:
the API served on a local port, an agent with a token, a new person per script, cleaned up afterwards."""

import json
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.contrib.auth import get_user_model
from django.core.handlers.wsgi import WSGIHandler
from django.core.management.base import CommandError

from memory import services
from memory.models import SCOPES, Agent, Subject
from portal import graphdb


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class Replay:
    """The API at `base`, an agent with every scope and its `token`, and the people made for the replay."""

    def __init__(self, base: str, name: str):
        self.base = base
        self.agent = Agent.objects.create(agent_id=f"bench-{uuid.uuid4().hex[:8]}", name=name, scopes=list(SCOPES))
        _, self.token = services.agent_token_issue(agent=self.agent)
        self.people: list[Subject] = []

    def person(self) -> Subject:
        """Return a new person who granted the agent access."""
        name = f"bench-{uuid.uuid4().hex[:12]}"
        user = get_user_model().objects.create_user(username=name, email=f"{name}@bench.invalid")
        subject = services.subject_get_or_create(user=user)
        services.grant_create(subject=subject, agent=self.agent)
        self.people.append(subject)
        return subject

    def post(self, path: str, payload: dict) -> dict:
        """POST to the API as the agent; an error answer stops the benchmark, naming it."""
        request = urllib.request.Request(f"{self.base}{path}", data=json.dumps(payload).encode(), method="POST",
                                         headers={"Authorization": f"Bearer {self.token}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise CommandError(f"{path} answered {error.code}: {error.read().decode(errors='replace')[:500]}") from None


@contextmanager
def replay_served(*, name: str, keep: bool = False) -> Iterator[Replay]:
    """Serve the API on a free local port for the block; afterwards delete the agent and, unless `keep`, the
    people the replay made with their memory."""
    server = make_server("127.0.0.1", 0, WSGIHandler(), server_class=_Server, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    replay = Replay(f"http://127.0.0.1:{server.server_port}/api/v1", name)
    try:
        yield replay
    finally:
        server.shutdown()
        if not keep:
            for subject in replay.people:
                graphdb.run("MATCH (n {user_id: $u}) DETACH DELETE n", {"u": subject.user_id})
                subject.account.delete()
        replay.agent.delete()
