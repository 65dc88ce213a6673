"""A stack of a test's own for erasure to the bytes: a launched Neo4j, a Redis that keeps its data on disk and a real
worker, each of which the test may kill and start again; and waiting for what the worker does."""

import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis
from django.core.management import call_command
from django.test import override_settings
from neomodel import db

from portal import graphdb
from portal.processes import celery_worker_command, database_url
from tests.support.outbox import broker_at
from tests.support.redis import RedisServer
from tests.support.stack import ROOT
from wiring.celery import app


def wait_for(condition, timeout=180, every=0.5):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(every)
    return found


class Worker:
    """A real Celery worker on the test's stack, logging at INFO where the byte scan reads logs (var/*.log)."""

    def __init__(self, env: dict):
        self.env = env
        self.log = ROOT / "var" / "test-worker-disk.log"
        self.proc = None

    def start(self) -> None:
        name = f"disk-{os.getpid()}-{time.monotonic_ns()}@%h"
        with self.log.open("a") as log:
            self.proc = subprocess.Popen(celery_worker_command(hostname=name, queues="celery,extraction,maintenance",
                                                               loglevel="INFO"),
                                         cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=self.env)
        wait_for(_worker_answers, timeout=90)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


@dataclass
class Stack:
    neo4j: Callable  # the launcher: neo4j("stop"), neo4j("start")
    neo4j_home: str
    redis: RedisServer
    worker: Worker

    def neo4j_kill(self) -> None:
        """SIGKILL Neo4j, as in a crash, and start it again: it recovers from its transaction logs."""
        pid = int((open(f"{self.neo4j_home}/launcher.pid")).read())
        os.kill(pid, 9)
        wait_for(lambda: not os.path.exists(f"/proc/{pid}"), timeout=30, every=0.1)
        self.neo4j("start")
        wait_for(_graph_answers, timeout=300, every=1)


def _worker_answers() -> bool:
    try:
        return bool(app.control.ping(timeout=0.5))
    except (redis.ConnectionError, OSError):  # the broker was restarted: the next ping connects anew
        return False


def _graph_answers() -> bool:
    try:
        return graphdb.scalar("RETURN 1 AS up") == 1
    except Exception:  # still starting or recovering
        db.close_connection()
        return False


def own_stack(launched, directory, monkeypatch):
    """Yield a Stack: the launched Neo4j (schema installed), a Redis with persistence as the app's Redis and the
    broker, media in `directory`, and a worker on all of them; this process uses them too for the block."""
    env, run = launched
    url = f"bolt://neo4j:launcher-secret@127.0.0.1:{env['NEO4J_BOLT_PORT']}"
    server = RedisServer(directory, persistence=True)
    server.start()
    caches = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": server.url}}
    values = {"NEO4J_URL": url, "REDIS_URL": server.url, "CELERY_BROKER_URL": server.url_of(1),
              "MEDIA_ROOT": str(directory / "media")}
    with override_settings(CACHES=caches, **values), broker_at(server.url_of(1)):
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        db.close_connection()
        graphdb.configure()
        call_command("install_labels", verbosity=0)
        worker = Worker({**os.environ, "DATABASE_URL": database_url()})
        worker.start()
        try:
            yield Stack(neo4j=run, neo4j_home=env["NEO4J_HOME"], redis=server, worker=worker)
        finally:
            worker.kill()
            server.kill()
            db.close_connection()
    graphdb.configure()
