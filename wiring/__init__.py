"""The wiring: settings, URLconf, Celery app, WSGI entry, health check, admin site and the commands that span
apps. It stands above every app and may import any of them; no app imports it."""

import os

# Web threads and worker processes already use every core; BLAS threads inside each embedding call
# would only oversubscribe them (measured: 41 ms instead of 352 ms per query embedding under load).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from wiring.celery import app as celery_app  # noqa: E402

__all__ = ("celery_app",)
