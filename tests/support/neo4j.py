"""A Neo4j of a module's own, started by the repository's launcher with auth on (each start takes seconds)."""

import os
import subprocess

import pytest

from portal.processes import free_port
from tests.support.stack import ROOT

SCRIPT = ROOT / "tools" / "neo4j" / "neo4j.sh"


@pytest.fixture(scope="module")
def launched(tmp_path_factory):
    """One launched Neo4j, with auth on, shared by the module's tests."""
    env = {**os.environ, "NEO4J_HOME": str(tmp_path_factory.mktemp("neo4j")), "NEO4J_BOLT_PORT": str(free_port()),
           "NEO4J_PASSWORD": "launcher-secret", "NEO4J_PAGECACHE": "64m", "NEO4J_HEAP": "256m",
           # Started for a few tests: the quick JIT alone starts it faster and plans their queries on a quarter less
           # CPU. The suite's own Neo4j, which runs them all, is better off with the optimising one.
           "NEO4J_JVM_OPTIONS": "-XX:TieredStopAtLevel=1"}
    run = lambda command: subprocess.run([SCRIPT, command], env=env, capture_output=True, text=True, timeout=180)
    started = run("start")
    assert started.returncode == 0, started.stderr
    yield env, run
    run("stop")
