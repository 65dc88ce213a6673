"""The process-wide neomodel connection, and the one place where the portal talks to Neo4j.

Rows come back as dicts keyed by the queries' `AS` aliases. A stated date (a neo4j Date) becomes a
`datetime.date`, a moment (a neo4j DateTime) an aware `datetime.datetime`; lists and maps are
converted all the way down. A query that returns whole nodes (or relationships) of the memory graph gets them
as instances of their neomodel classes (memory.graph) when asked for `instances`: a node that carries labels of
another application's beside a class's own (a database shared with it) is an instance of that class, and one that
carries no class's labels is None, which a reader leaves out. Every reader above this module sees Python values
only.
"""

import functools
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import neo4j
import neo4j.graph
import neo4j.time
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from neomodel import db, get_config
from neomodel.sync_._registry import registry

SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
SERVER_INFO = "CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS version, edition"
VECTOR_DIMENSIONS = ("SHOW VECTOR INDEXES YIELD name, options "
                     "RETURN name, options.indexConfig['vector.dimensions'] AS dimensions")


def configure() -> None:
    """Point neomodel at a driver for NEO4J_URL; it connects on first use."""
    url = urlsplit(settings.NEO4J_URL)
    if url.scheme not in SCHEMES or not url.hostname:
        raise ImproperlyConfigured(
            f"NEO4J_URL must look like bolt://user:password@host:7687 or neo4j+s://user:password@host "
            f"(schemes: {', '.join(SCHEMES)}); got scheme {url.scheme!r}"
        )
    if url.username is None:
        raise ImproperlyConfigured(
            "NEO4J_URL needs credentials (user:password@host); with auth off any pair works, e.g. neo4j:neo4j"
        )
    config = get_config()
    config.database_url = None  # neomodel would build a driver of its own, without the liveness check
    config.database_name = url.path.strip("/") or None
    vector_search_filters.cache_clear()
    config.driver = neo4j.GraphDatabase.driver(
        f"{url.scheme}://{url.hostname}:{url.port or 7687}",
        auth=(unquote(url.username), unquote(url.password or "")),
        # A pooled connection idle this long is checked before use, so a restarted Neo4j costs a
        # round trip inside the request instead of an error for the caller.
        liveness_check_timeout=settings.NEO4J_LIVENESS_CHECK_SECONDS,
        # No query reads the server's notifications (planner hints, deprecations), and the context's statement
        # drew dozens each: sent, parsed and logged at debug on every request.
        notifications_min_severity="OFF",
    )


def quoted(name: str) -> str:
    """Return a label, relationship type or index name quoted with backticks, so that no text can change a query."""
    return "`" + name.replace("`", "``") + "`"


# The types of most values a query returns, which stay as they are: one set lookup each.
PLAIN = frozenset({str, int, float, bool, type(None)})


def native(value: Any) -> Any:
    """Return a graph value as a Python one: Date -> date, DateTime -> aware datetime, recursively."""
    kind = type(value)
    if kind in PLAIN:
        return value
    # A context reads hundreds of maps and lists a request: their plain values are kept without a call each.
    if kind is dict:
        return {k: v if type(v) in PLAIN else native(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in PLAIN else native(v) for v in value]
    if isinstance(value, str | int | float):  # a subclass of a plain type
        return value
    if isinstance(value, neo4j.time.DateTime):
        when = value.to_native()
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    if isinstance(value, neo4j.time.Date):
        return value.to_native()
    if isinstance(value, list | tuple):
        return [native(v) for v in value]
    if isinstance(value, dict):
        return {k: native(v) for k, v in value.items()}
    if hasattr(value, "to_native"):  # Time, Duration
        return value.to_native()
    return value


def moment_parsed(text: str) -> datetime:
    """Return the aware datetime of a DateTime a query returned as `toString()`, without its zone id
    ("2026-01-01T09:30:00Z[UTC]"): about 1 µs, against some 130 µs for the driver to build its own DateTime."""
    return datetime.fromisoformat(text.partition("[")[0])


def rows(query: str, params: dict | None = None, *, instances: bool = False, as_stored: bool = False) -> list[dict]:
    """Run a query and return its rows as dicts keyed by the query's column aliases, values made native; with
    `instances`, nodes and relationships come back as instances of their neomodel classes. With `as_stored` the
    values stay the driver's own: the worker writes the moments it reads back, to the nanosecond."""
    found, columns = db.cypher_query(query, params or {})
    if as_stored:
        return [dict(zip(columns, row)) for row in found]
    if instances:
        return [{column: native(_instances(value)) for column, value in zip(columns, row)} for row in found]
    return [{column: native(value) for column, value in zip(columns, row)} for row in found]


def _instances(value: Any) -> Any:
    """Return a value with each node and relationship in it as an instance of its neomodel class (or None)."""
    if isinstance(value, neo4j.graph.Node):
        node_class = _node_class(frozenset(value.labels))
        return node_class.inflate(value) if node_class else None
    if isinstance(value, neo4j.graph.Relationship):
        relationship_class = registry.get_class(frozenset([value.type]), db._database_name)
        return relationship_class.inflate(value) if relationship_class else None
    if isinstance(value, list):
        return [_instances(v) for v in value]
    if isinstance(value, dict):
        return {k: _instances(v) for k, v in value.items()}
    return value


@functools.lru_cache(maxsize=256)
def _node_class(labels: frozenset) -> type | None:
    """Return the class of a node's labels: neomodel's, else the class whose labels the node carries the most of
    (the extra ones are another application's), else None."""
    exact = registry.get_class(labels, db._database_name)
    if exact is not None:
        return exact
    carried = [(len(own), node_class) for own, node_class in registry.snapshot_node_registry().items()
               if own <= labels]
    return max(carried, key=lambda pair: pair[0])[1] if carried else None


def scalar(query: str, params: dict | None = None) -> Any:
    """Return the first column of the first row (native), or None when there is no row."""
    found, _ = db.cypher_query(query, params or {})
    return native(found[0][0]) if found else None


def run(query: str, params: dict | None = None) -> None:
    """Run a statement whose result no one reads: a write, a lock, a schema change."""
    db.cypher_query(query, params or {})


def stream(query: str, params: dict | None = None) -> Iterator[dict]:
    """Yield a read-only query's rows (as `rows` gives them) as the server sends them, so that a whole graph never
    sits in memory."""
    with _driver().session(default_access_mode=neo4j.READ_ACCESS) as session:
        for record in session.run(query, params or {}):
            yield {column: native(value) for column, value in record.items()}


def explain(query: str, params: dict | None = None) -> tuple[list[str], str, dict | None]:
    """Return what a query would return and do, without running it: its columns, its type ("r", "rw", "w", "s")
    and its plan."""
    with _driver().session(default_access_mode=neo4j.READ_ACCESS) as session:
        result = session.run("EXPLAIN " + query, params or {})
        columns = list(result.keys())
        summary = result.consume()
    return columns, summary.query_type, summary.plan


def _driver() -> neo4j.Driver:
    """Return neomodel's process-wide driver, connecting on first use."""
    if db.driver is None:
        db.cypher_query("RETURN 1")
    return db.driver


def moment(value: date | datetime) -> datetime:
    """Return a date or a datetime as an aware datetime (a date starts at midnight UTC), to compare or place them."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def reconnect() -> None:
    """Forget a driver inherited through fork; the next query uses a new one of this process's own.

    Closing it here would say goodbye on sockets the parent still uses, so it is only dropped.
    """
    db.driver = None
    db._owns_driver = False
    configure()


def server_info() -> dict:
    """Return the server's name, version and edition; raises if Neo4j is unreachable."""
    return rows(SERVER_INFO)[0]


@functools.cache
def vector_search_filters() -> bool:
    """Return whether the server filters a vector search by property inside the index: the SEARCH
    clause over an index created `WITH [...]`, from Neo4j 2026.01 on (5.26 LTS scans exactly instead)."""
    found = re.match(r"(\d+)\.(\d+)", server_info()["version"])
    return bool(found) and (int(found[1]), int(found[2])) >= (2026, 1)


def vector_dimension_mismatches(expected: int) -> list[str]:
    """Return the vector indexes whose dimensions differ from the embedder's."""

    return [f"{row['name']} has {row['dimensions']}" for row in rows(VECTOR_DIMENSIONS)
            if row["dimensions"] != expected]
