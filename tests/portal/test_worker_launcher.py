"""tools/worker.sh, the worker `make run` starts: however slowly the worker starts, start waits for it to be ready
and stop stops it, even while it is still starting (issue 41 item 1).

A slow machine is simulated by holding the worker's interpreter before it imports anything (a sitecustomize that
waits while a file exists), and by a `sleep` that lasts a twentieth of the time asked, so the script's own clock
runs twenty times faster than the worker starts."""

import os
import subprocess
import time
from pathlib import Path

import pytest

from portal.processes import database_url
from tests.support.stack import ROOT

SCRIPT = ROOT / "tools" / "worker.sh"
pytestmark = pytest.mark.django_db(transaction=True)  # the worker reads the suite's database


@pytest.fixture
def slow_machine(tmp_path):
    """Return (environment, hold): the script's environment on a slow machine, and the file that holds the worker."""
    hold = tmp_path / "hold"
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import os, time\nwhile os.path.exists(os.environ['WORKER_TEST_HOLD']):\n    time.sleep(0.05)\n")
    fast = tmp_path / "bin"
    fast.mkdir()
    (fast / "sleep").write_text('#!/bin/sh\nexec /usr/bin/sleep "$(echo "$1 / 20" | bc -l)"\n')
    (fast / "sleep").chmod(0o755)
    env = {**os.environ, "DATABASE_URL": database_url(), "WORKER_DIR": str(tmp_path / "celery"),
           "WORKER_TEST_HOLD": str(hold), "PYTHONPATH": str(site), "PATH": f"{fast}:{os.environ['PATH']}"}
    yield env, hold
    subprocess.run([SCRIPT, "stop"], env=env, capture_output=True, timeout=120)


def _workers(directory: str) -> list[int]:
    """Return the pids of processes whose command line names the directory (the worker's schedule is there)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and directory.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _start(env: dict) -> subprocess.Popen:
    return subprocess.Popen([SCRIPT, "start"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_stop_while_the_worker_still_starts_stops_it(slow_machine):
    env, hold = slow_machine
    hold.touch()
    start = _start(env)
    pidfile = Path(env["WORKER_DIR"]) / "worker.pid"
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and _workers(env["WORKER_DIR"])):
        assert time.monotonic() < deadline, "start wrote no pidfile while the worker was starting"
        time.sleep(0.05)
    stop = subprocess.run([SCRIPT, "stop"], env=env, capture_output=True, text=True, timeout=120)
    said, _ = start.communicate(timeout=60)
    assert stop.returncode == 0 and _workers(env["WORKER_DIR"]) == []
    assert start.returncode == 1 and "stopped before it was ready" in said


def test_start_waits_for_a_slow_worker_until_it_is_ready(slow_machine):
    env, hold = slow_machine
    hold.touch()
    start = _start(env)
    time.sleep(1)  # the script's fake clock has run 20 s, twice its old limit; the worker has not yet started
    hold.unlink()
    said, _ = start.communicate(timeout=600)
    assert start.returncode == 0 and "Celery worker running" in said, said
    status = subprocess.run([SCRIPT, "status"], env=env, capture_output=True, text=True)
    again = subprocess.run([SCRIPT, "start"], env=env, capture_output=True, text=True)
    assert status.returncode == 0 and "running" in again.stdout
    assert subprocess.run([SCRIPT, "stop"], env=env, capture_output=True, timeout=120).returncode == 0
    assert _workers(env["WORKER_DIR"]) == []
    assert subprocess.run([SCRIPT, "status"], env=env, capture_output=True).returncode == 3
