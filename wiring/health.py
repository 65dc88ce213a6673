"""GET /healthz: the state of every service the portal needs, and of the work waiting for them, as JSON.

A service that does not answer makes it 503 (`status: unavailable`); the workers are asked through the
broker, so with the broker down they are reported as not known, and only the broker is named down. Work accepted but still waiting
past WORK_STUCK_SECONDS (an extraction, export or erasure) does not: the portal still serves and
accepts, so it answers 200 with `status: degraded` and names the kinds in `stuck`.
"""

from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from portal import graphdb
from portal.outbox import work_status
from portal.redis_clients import app_redis
from wiring.celery import app as celery_app


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"vendor": connection.vendor}


def _redis() -> dict:
    return {"version": app_redis().info("server")["redis_version"]}


def _broker() -> dict:
    with celery_app.connection_for_write() as connection:
        connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=1)
        return {"transport": connection.transport_cls}


def _worker() -> dict:
    replies = celery_app.control.ping(timeout=1.0, limit=1)
    if not replies:
        raise RuntimeError("no Celery worker answered within 1 s")
    return {"workers": sorted(name for reply in replies for name in reply)}


CHECKS = {"neo4j": graphdb.server_info, "redis": _redis, "database": _database, "broker": _broker,
          "worker": _worker}
# A check that cannot tell anything while another service is down: workers answer through the broker.
NEEDS = {"worker": "broker"}


@never_cache
def healthz(request):
    services, down = {}, []
    for name, check in CHECKS.items():
        if NEEDS.get(name) in down:
            services[name] = {"ok": None, "error": f"not known while the {NEEDS[name]} is down"}
            continue
        try:
            services[name] = {"ok": True, **check()}
        except Exception as exc:  # every failure, whatever its kind, means the service is down
            services[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            down.append(name)
    work = work_status()
    stuck = sorted(name for name, counts in work.items() if counts.get("stuck"))
    body = {"status": "unavailable" if down else "degraded" if stuck else "ok", "down": down, "stuck": stuck,
            "services": services, "work": work}
    return JsonResponse(body, status=503 if down else 200)
