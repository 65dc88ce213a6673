"""gunicorn's settings for `gunicorn wiring.wsgi`, read from the working directory (the repository root)."""

import os

from django.conf import settings

from wiring.server import errors_as_json, worker_warm

# The settings are read here, in the master, so that a refusal to start (DEBUG off without a strong SECRET_KEY) is
# said once, in one line, rather than by every worker gunicorn would start again in its place.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wiring.settings")
settings.SECRET_KEY

# A URL past limit_request_line or a header gunicorn refuses gets the API's JSON error, not gunicorn's HTML.
errors_as_json()


def post_worker_init(worker):
    """Warm each worker before its first request (wiring.server.worker_warm)."""
    worker_warm()
