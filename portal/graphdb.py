"""The process-wide neomodel connection: configured once, connected lazily on first query."""

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from neomodel import db, get_config

SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def configure() -> None:
    """Point neomodel at NEO4J_URL; the driver is built on first use."""
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
    get_config().database_url = settings.NEO4J_URL


def reconnect() -> None:
    """Forget a driver inherited through fork; the next query builds this process's own.

    Closing it here would say goodbye on sockets the parent still uses, so it is only dropped.
    """
    db.driver = None
    db._owns_driver = False


def server_info() -> dict:
    """Return the server's name, version and edition; raises if Neo4j is unreachable."""
    rows, _ = db.cypher_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0], edition"
    )
    name, version, edition = rows[0]
    return {"name": name, "version": version, "edition": edition}


def vector_dimension_mismatches(expected: int) -> list[str]:
    """Return the vector indexes whose dimensions differ from the embedder's."""
    rows, _ = db.cypher_query(
        "SHOW VECTOR INDEXES YIELD name, options "
        "RETURN name, options.indexConfig['vector.dimensions']"
    )
    return [f"{name} has {dims}" for name, dims in rows if dims != expected]


def check_vector_dimensions(expected: int) -> None:
    """Refuse to run against indexes built for another embedder."""
    mismatches = vector_dimension_mismatches(expected)
    if mismatches:
        raise ImproperlyConfigured(
            f"The configured embedder makes {expected}-dimensional vectors but these Neo4j vector "
            f"indexes differ: {', '.join(mismatches)}. Set EMBEDDER back, or drop those indexes, "
            "run `manage.py install_labels` and re-embed."
        )
