from celery import shared_task

from governance import selectors, services
from memory.models import Subject
from portal.exceptions import TRANSIENT
from portal.outbox import work_claim

# A worker killed mid-job holds the job's claim this long; then the Beat task may queue it again.
JOB_CLAIM_SECONDS = 30 * 60


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8,
             ignore_result=True)
def export_build_task(self, job_id: int) -> None:
    """Build one export archive (a retry starts the archive again; one worker at a time per job)."""
    with work_claim(kind="exports", key=str(job_id), holder=self.request.id) as claimed:
        if not claimed:
            return
        try:
            services.export_build(job_id=job_id)
        except TRANSIENT:
            raise
        except Exception as exc:
            services.export_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
            raise


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8,
             ignore_result=True)
def subject_erase_task(self, job_id: int) -> None:
    """Carry out one erasure (every step is idempotent, so a retry finishes what a failure left)."""
    with work_claim(kind="erasures", key=str(job_id), holder=self.request.id) as claimed:
        if not claimed:
            return
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


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8,
             ignore_result=True)
def retention_apply_task(self, subject_id: int) -> None:
    """Delete what is past one person's retention (idempotent: a retry deletes what is left)."""
    subject = Subject.objects.filter(pk=subject_id).first()
    if subject is not None:
        services.retention_apply(subject=subject)


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, ignore_result=True)
def retention_run_task(self) -> int:
    """Queue a retention run for every person whose memory may expire, one task each (run by Celery Beat)."""
    ids = list(selectors.retention_subjects().values_list("pk", flat=True))
    for subject_id in ids:
        retention_apply_task.delay(subject_id)
    return len(ids)
