"""gunicorn's settings for `gunicorn wiring.wsgi`, read from the working directory (the repository root)."""

from wiring.server import errors_as_json, worker_warm

# A URL past limit_request_line or a header gunicorn refuses gets the API's JSON error, not gunicorn's HTML.
errors_as_json()


def post_worker_init(worker):
    """Warm each worker before its first request (wiring.server.worker_warm)."""
    worker_warm()
