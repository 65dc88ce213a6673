from celery import shared_task

from governance import services
from portal.exceptions import TRANSIENT


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8)
def export_build_task(self, job_id: int) -> None:
    """Build one export archive (a retry starts the archive again)."""
    try:
        services.export_build(job_id=job_id)
    except TRANSIENT:
        raise
    except Exception as exc:
        services.export_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8)
def subject_erase_task(self, job_id: int) -> None:
    """Carry out one erasure (every step is idempotent, so a retry finishes what a failure left)."""
    try:
        services.subject_erase(job_id=job_id)
    except TRANSIENT:
        raise
    except Exception as exc:
        services.erasure_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True)
def exports_expire_task(self) -> int:
    """Delete export files past their expiry (run by Celery Beat)."""
    return services.exports_expire()
