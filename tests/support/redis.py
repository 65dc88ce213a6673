"""A redis-server of a test's own: stopping it disturbs no one else (the suite shares the machine's Redis)."""

import shutil
import subprocess
import time

import pytest
import redis
from django.test import override_settings

from tests.support.stack import closed_port


class RedisServer:
    """A redis-server of the test's own on a free port, so stopping it disturbs no one else."""

    def __init__(self, directory, *, persistence: bool = False):
        self.port = closed_port()
        self.directory = directory
        self.proc = None
        # As a production Redis keeps its data: a dump now and then, and every write in the append-only file.
        self.persistence = ["--save", "3600 1", "--appendonly", "yes"] if persistence else ["--save", "",
                                                                                                "--appendonly", "no"]

    @property
    def url(self) -> str:
        return self.url_of(0)

    def url_of(self, database: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [shutil.which("redis-server"), "--bind", "127.0.0.1", "--port", str(self.port), *self.persistence,
             "--dir", str(self.directory)], stdout=subprocess.DEVNULL)
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
