"""The processes benchmarks and tests start beside themselves: the portal served by gunicorn, Celery workers.

Which modules serve and which app the workers load come from the configuration (WSGI_APPLICATION, the
Celery app in use), so the apps that start them need not know where the wiring lives.
"""

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence

from celery import current_app
from django.conf import settings
from django.core.management.base import CommandError
from django.db import connection


def free_port() -> int:
    """Return a loopback port that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def port_wait(port: int, seconds: float = 60) -> None:
    """Wait until something listens on the loopback port; refuse after `seconds`."""
    deadline = time.monotonic() + seconds
    while not port_listening(port):
        if time.monotonic() > deadline:
            raise CommandError(f"The server did not start on port {port}.")
        time.sleep(0.2)


def database_url() -> str:
    """Return the URL of the database this process uses, so the processes it starts use the same one."""
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    return f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}/{s['NAME']}"


def gunicorn_command(*, port: int, workers: int = 2, threads: int = 4, options: Sequence[str] = ()) -> list[str]:
    """Return the command that serves the portal (WSGI_APPLICATION) with gunicorn's threaded workers on the port."""
    module, _, name = settings.WSGI_APPLICATION.rpartition(".")
    return [sys.executable, "-m", "gunicorn", f"{module}:{name}", "--bind", f"127.0.0.1:{port}", "--workers",
            str(workers), "--threads", str(threads), "--worker-class", "gthread", "--log-level", "warning", *options]


@contextlib.contextmanager
def gunicorn_serving(*, port: int | None = None, env: dict | None = None, stdout=None, **command) -> Iterator[int]:
    """Serve the portal with gunicorn for the block (gunicorn_command's options); yield its port."""
    port = port or free_port()
    server = subprocess.Popen(gunicorn_command(port=port, **command), cwd=settings.BASE_DIR, env=env, stdout=stdout)
    try:
        port_wait(port)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def celery_worker_command(*, hostname: str, queues: str, concurrency: int = 1, loglevel: str = "WARNING") -> list[str]:
    """Return the command of a prefork Celery worker of the portal's app (the one this process uses)."""
    return [sys.executable, "-m", "celery", "-A", current_app.main, "worker", "--pool", "prefork", "--concurrency",
            str(concurrency), "--queues", queues, "--hostname", hostname, "--loglevel", loglevel]


def celery_workers_wait(hostnames: list[str], seconds: float = 90) -> None:
    """Wait until every named worker answers a ping; refuse after `seconds`."""

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answered = {name for reply in current_app.control.ping(destination=hostnames, timeout=1) for name in reply}
        if answered >= set(hostnames):
            return
    raise CommandError(f"The Celery workers did not start: {sorted(set(hostnames))}")
