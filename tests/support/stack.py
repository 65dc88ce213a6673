"""The suite's own stack: the repository, the graph it may write to, stores made unreachable on purpose."""

import contextlib
from pathlib import Path

import pytest
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


def screenshot(page, name: str) -> None:
    """Save the whole page as test-artifacts/screenshots/<name>.png."""
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
