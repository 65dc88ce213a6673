"""The app's Redis stopped for real: reads go on, writes answer a JSON 503 naming Redis and store nothing."""

import shutil
import subprocess
import time

import pytest
import redis
from django.test import override_settings
from neomodel import db

from tests.conftest import closed_port

pytestmark = pytest.mark.django_db


class RedisServer:
    """A redis-server of the test's own on a free port, so stopping it disturbs no one else."""

    def __init__(self, directory):
        self.port = closed_port()
        self.directory = directory
        self.proc = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [shutil.which("redis-server"), "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.directory)], stdout=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture
def app_redis_server(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    caches = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": server.url}}
    with override_settings(REDIS_URL=server.url, CACHES=caches):  # portal.redis_clients keeps a client per URL
        yield server
    if server.proc.poll() is None:
        server.kill()


def append(client, user_id, content, client_message_id):
    return client.post("/api/v1/conversations/s1/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": content, "client_message_id": client_message_id}]}, format="json")


def stored(user_id) -> list[str]:
    rows, _ = db.cypher_query("MATCH (m:Message {user_id: $u}) RETURN m.content ORDER BY m.seq", {"u": user_id})
    return [r[0] for r in rows]


def test_with_the_app_redis_down_context_answers_and_appends_are_a_json_503(granted, app_redis_server):
    subject, _, client = granted
    assert append(client, subject.user_id, "I live in Lisbon.", "m-1").status_code == 201

    app_redis_server.kill()
    context = client.post("/api/v1/context", {"user_id": subject.user_id, "session_id": "s1",
                                              "query": "Where do I live?"}, format="json")
    assert context.status_code == 200  # the rate limiter lets it through; see AgentRateThrottle
    refused = append(client, subject.user_id, "I moved to Porto.", "m-2")
    assert refused.status_code == 503 and refused["Content-Type"] == "application/json"
    assert refused.json()["extra"] == {"service": "redis"}
    assert "nothing was changed" in refused.json()["message"]
    assert stored(subject.user_id) == ["I live in Lisbon."]

    app_redis_server.start()
    assert append(client, subject.user_id, "I moved to Porto.", "m-2").status_code == 201
    assert append(client, subject.user_id, "I moved to Porto.", "m-2").json()["stored"] == 0
    assert stored(subject.user_id) == ["I live in Lisbon.", "I moved to Porto."]
