import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.test import override_settings
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError
from neomodel import db

from portal import graphdb
from portal.processes import free_port
from tests.support.neo4j import SCRIPT


def test_launcher_starts_a_neo4j_that_answers_cypher_with_auth(launched):
    env, run = launched
    url = f"bolt://127.0.0.1:{env['NEO4J_BOLT_PORT']}"
    with GraphDatabase.driver(url, auth=("neo4j", "launcher-secret")) as driver:
        records, _, _ = driver.execute_query("CREATE (n:Probe {v: 41}) RETURN n.v + 1 AS answer")
        assert records[0]["answer"] == 42
    with GraphDatabase.driver(url, auth=("neo4j", "wrong")) as driver, pytest.raises(AuthError):
        driver.verify_connectivity()


def test_launcher_is_idempotent_reports_status_and_keeps_data_over_a_restart(launched):
    env, run = launched
    url = f"bolt://127.0.0.1:{env['NEO4J_BOLT_PORT']}"
    auth = ("neo4j", "launcher-secret")
    with GraphDatabase.driver(url, auth=auth) as driver:
        driver.execute_query("CREATE (:Kept {name: 'persisted'})")
    again = run("start")
    assert again.returncode == 0 and "already running" in again.stdout
    assert run("status").returncode == 0
    assert run("stop").returncode == 0
    status = run("status")
    assert status.returncode == 3 and "not running" in status.stdout
    assert run("start").returncode == 0, "restart with the same password must work"
    with GraphDatabase.driver(url, auth=auth) as driver:
        records, _, _ = driver.execute_query("MATCH (k:Kept) RETURN k.name AS name")
        assert [r["name"] for r in records] == ["persisted"]


def test_missing_java_is_explained(tmp_path):
    env = {"PATH": "/nonexistent", "NEO4J_HOME": str(tmp_path), "NEO4J_BOLT_PORT": str(free_port()), "HOME": str(tmp_path)}
    result = subprocess.run(["/bin/bash", SCRIPT, "start"], env=env, capture_output=True, text=True)
    assert result.returncode == 1
    assert "Java 17 or newer is missing" in result.stderr
    assert "NEO4J_URL" in result.stderr


def test_a_restarted_neo4j_costs_the_portal_no_failed_query(launched):
    env, run = launched
    with override_settings(NEO4J_URL=f"bolt://neo4j:launcher-secret@127.0.0.1:{env['NEO4J_BOLT_PORT']}"):
        db.close_connection()
        graphdb.configure()
        try:
            with ThreadPoolExecutor(4) as pool:  # several pooled connections, all left stale by the restart
                assert list(pool.map(lambda n: graphdb.scalar("RETURN $n AS n", {"n": n}), range(8))) == list(range(8))
            run("stop")
            assert run("start").returncode == 0
            time.sleep(settings.NEO4J_LIVENESS_CHECK_SECONDS)
            assert [graphdb.scalar("RETURN $n AS n", {"n": n}) for n in range(8)] == list(range(8))
        finally:
            db.close_connection()
    graphdb.configure()
