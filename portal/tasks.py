from celery import shared_task

from portal import graphdb
from portal.outbox import work_redispatch


@shared_task
def graph_ping() -> dict:
    """Return the Neo4j server as a worker process sees it."""
    return graphdb.server_info()


@shared_task(ignore_result=True)
def work_redispatch_task() -> dict[str, int]:
    """Queue again the accepted work still waiting in its outbox (run by Celery Beat every minute)."""
    return work_redispatch()

