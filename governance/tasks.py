from collections.abc import Callable
from contextlib import suppress

from celery import Task, shared_task
from celery.signals import worker_ready
from redis.exceptions import LockError

from governance import disk_step, selectors, services
from memory.models import Subject
from portal.exceptions import TRANSIENT
from portal.outbox import work_claim
from portal.redis_clients import app_redis

# A worker killed mid-job holds the job's claim this long; then the Beat task may queue it again.
JOB_CLAIM_SECONDS = 30 * 60
# One disk step or check at a time: a worker killed mid-step holds it this long.
DISK_LOCK_SECONDS = 4 * 3600


def job_run(*, task: Task, kind: str, job_id: int, run: Callable[..., object], fail: Callable[..., object]) -> None:
    """Run one job under its claim, and mark it failed on an error a retry would not mend."""
    with work_claim(kind=kind, key=str(job_id), holder=task.request.id) as claimed:
        if not claimed:
            return
        try:
            run(job_id=job_id)
        except TRANSIENT:
            raise
        except Exception as exc:
            fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
            raise


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8,
             ignore_result=True)
def export_build_task(self, job_id: int) -> None:
    """Build one export archive (a retry starts the archive again; one worker at a time per job)."""
    job_run(task=self, kind="exports", job_id=job_id, run=services.export_build, fail=services.export_fail)


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8,
             ignore_result=True)
def subject_erase_task(self, job_id: int) -> None:
    """Carry out one erasure (every step is idempotent, so a retry finishes what a failure left)."""
    job_run(task=self, kind="erasures", job_id=job_id, run=services.subject_erase, fail=services.erasure_fail)


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


def disk_locked(run: Callable[[], object]) -> None:
    """Run a disk step or check unless another one runs now (they read every file, and a compaction stops Neo4j)."""
    lock = app_redis().lock("lock:disk-erase", timeout=DISK_LOCK_SECONDS)
    if lock.acquire(blocking=False):
        try:
            run()
        finally:
            with suppress(LockError):  # lapsed: it expires on its own
                lock.release()


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, ignore_result=True)
def disk_erase_task(self) -> None:
    """Take off the disk what erasures deleted (run by Celery Beat daily)."""
    disk_locked(disk_step.disk_erase)


@shared_task(bind=True, acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True, ignore_result=True)
def disk_check_task(self, after: str) -> None:
    """Scan again for what erasures took off the disk (queued when a worker starts: after a restart)."""
    disk_locked(lambda: disk_step.disk_check(after=after))


@worker_ready.connect
def disk_check_on_start(**kwargs) -> None:
    """A worker that starts checks the disk again for every erasure still being watched."""
    disk_check_task.delay(after="a restart")
