from celery import shared_task

from portal import graphdb


@shared_task
def graph_ping() -> dict:
    """Return the Neo4j server as a worker process sees it."""
    return graphdb.server_info()
