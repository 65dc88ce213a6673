"""The suite's own stack: the repository, the graph it may write to, stores made unreachable on purpose."""

import contextlib
from pathlib import Path

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.test import override_settings
from neomodel import db

from portal import graphdb
from portal.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
# Nodes with this label mark a graph that only this suite has written to.
MARKER = "PortalTestSuite"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
# Debian's Chromium, headless, as every browser test runs it; and the password its signed-in people have.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BROWSER_PASSWORD = "a-long-passphrase-8"
# How long a process the suite starts (a worker, gunicorn), or one request to it, may take before it counts as
# failed: a deadline, not a wait. Idle, they take seconds; with other builds loading both cores, a minute and more.
LOADED_MACHINE_SECONDS = 300


def refuse_foreign_graph():
    """Stop the run when Neo4j holds nodes this suite did not write: it may be someone's memory."""
    rows, _ = db.cypher_query(f"MATCH (n) WHERE NOT n:{MARKER} RETURN count(n)")
    marked, _ = db.cypher_query(f"MATCH (n:{MARKER}) RETURN count(n)")
    if rows[0][0] and not marked[0][0]:
        pytest.exit(
            f"Refusing to run: the Neo4j at {db.url} holds {rows[0][0]} nodes that this suite did not write. "
            "Point NEO4J_URL at an empty database (make test starts one on port 7688).",
            returncode=3,
        )


def closed_port() -> int:
    """Return a loopback port that nothing listens on."""
    return free_port()


@contextlib.contextmanager
def neo4j_unreachable():
    """Point the process's graph connection at a closed port for the duration of the block."""
    db.close_connection()
    with override_settings(NEO4J_URL=f"bolt://neo4j:neo4j@127.0.0.1:{closed_port()}"):
        graphdb.configure()
        try:
            yield
        finally:
            db.close_connection()
    graphdb.configure()


@contextlib.contextmanager
def database_locked():
    """Hold the relational database from another connection as another writer does, for the block: no one else may
    write, reading goes on. This thread's connection gives up waiting for the lock at once rather than after seconds.

    The data it reads must be committed (transactional_db): a test's own open transaction would hold the lock first.
    """
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    sqlite = connection.vendor == "sqlite"
    other.set_autocommit(sqlite)  # SQLite's BEGIN opens the transaction itself
    with other.cursor() as cursor:
        if sqlite:
            cursor.execute("BEGIN IMMEDIATE")
        else:
            tables = ", ".join(connection.ops.quote_name(t) for t in connection.introspection.django_table_names(
                only_existing=True))
            cursor.execute(f"LOCK TABLE {tables} IN EXCLUSIVE MODE")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout" if sqlite else "SHOW lock_timeout")
        waited = cursor.fetchone()[0]
        cursor.execute("PRAGMA busy_timeout = 50" if sqlite else "SET lock_timeout = '50ms'")
    try:
        yield
    finally:
        with other.cursor() as cursor:
            cursor.execute("ROLLBACK")
        other.close()
        with connection.cursor() as cursor:
            if sqlite:
                cursor.execute(f"PRAGMA busy_timeout = {int(waited)}")
            else:
                cursor.execute("SELECT set_config('lock_timeout', %s, false)", [waited])


def screenshot(page, name: str) -> None:
    """Save the whole page as test-artifacts/screenshots/<name>.png."""
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
