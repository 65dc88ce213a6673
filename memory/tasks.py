from celery import shared_task

from memory import ingest, services
from portal.exceptions import TRANSIENT
from portal.outbox import work_claim


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8,
             ignore_result=True)
def message_extract(self, message_uid: str, user_id: str) -> str:
    """Turn one stored message into long-term memory (idempotent; one worker at a time per message)."""
    with work_claim(kind="extractions", key=message_uid, holder=self.request.id) as claimed:
        if not claimed:
            return "running"  # a re-dispatch raced the first task: that one extracts it
        try:
            return ingest.message_extract(message_uid=message_uid, user_id=user_id)
        except TRANSIENT:
            raise
        except Exception as exc:
            ingest.message_extraction_failed(message_uid=message_uid, user_id=user_id,
                                             error=f"{type(exc).__name__}: {exc}")
            raise


@shared_task(acks_late=True, ignore_result=True)
def access_queue_drain_task() -> int:
    """Write the queued access records to the access log (Beat runs it every ACCESS_DRAIN_SECONDS)."""
    return services.access_queue_drain()


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, ignore_result=True)
def nam_adopt_task(self) -> None:
    """Own what neo4j-agent-memory wrote since the last run (Beat runs it in the switch-over mode)."""
    services.nam_adopt()
