#!/usr/bin/env bash
# Start or stop the Celery worker (with Beat embedded) for local development.
# Usage: tools/worker.sh start|stop|status
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/var/celery"
pidfile="$dir/worker.pid"
running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case "${1:-}" in
  start)
    if running; then echo "Celery worker running (pid $(cat "$pidfile"))"; exit 0; fi
    mkdir -p "$dir"
    cd "$root"
    .venv/bin/celery -A wiring worker --beat --concurrency 2 --loglevel INFO \
      --queues celery,extraction,maintenance \
      --schedule "$dir/celerybeat-schedule" --pidfile "$pidfile" --logfile "$dir/worker.log" --detach
    for _ in $(seq 1 50); do running && { echo "Celery worker running (log: var/celery/worker.log)"; exit 0; }; sleep 0.2; done
    echo "Celery worker did not start; see $dir/worker.log" >&2; exit 1 ;;
  stop)
    if running; then
      pid="$(cat "$pidfile")"; kill "$pid"
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    fi
    rm -f "$pidfile"; echo "Celery worker stopped" ;;
  status)
    if running; then echo "Celery worker running (pid $(cat "$pidfile"))"; else echo "Celery worker not running"; exit 3; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
