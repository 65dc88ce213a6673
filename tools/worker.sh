#!/usr/bin/env bash
# Start or stop the Celery worker (with Beat embedded) for local development.
# Usage: tools/worker.sh start|stop|status
# Settings (environment): WORKER_DIR (its pidfile, log and Beat schedule; default var/celery),
# WORKER_START_SECONDS (how long start waits for it to be ready, default 600), WORKER_STOP_SECONDS (how long stop
# lets it finish its tasks before it is killed, default 60).
#
# The worker is started in a session of its own (so a Ctrl-C in the terminal that ran start leaves it alone) and
# its pid is written before start waits: Celery's --detach forks, and the worker writes its own pidfile only once
# it has started, seconds later on a loaded machine, so a stop in between found nothing and left it running.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${WORKER_DIR:-$root/var/celery}"
pidfile="$dir/worker.pid"
log="$dir/worker.log"

# The worker, or start's own process an instant before it becomes the worker.
ours() { ps -p "$1" -o args= 2>/dev/null | grep -qE "celery -A wiring worker|tools/worker\.sh start"; }
running() { [ -f "$pidfile" ] && ours "$(cat "$pidfile")"; }

case "${1:-}" in
  start)
    if running; then echo "Celery worker running (pid $(cat "$pidfile"))"; exit 0; fi
    mkdir -p "$dir"
    cd "$root"
    logged=$(stat -c %s "$log" 2>/dev/null || echo 0)
    setsid .venv/bin/celery -A wiring worker --beat --concurrency 2 --loglevel INFO \
      --queues celery,extraction,maintenance --schedule "$dir/celerybeat-schedule" >>"$log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$pidfile"
    # Ready when it says so in its log (it is connected to the broker then), however slow the machine is.
    deadline=$((SECONDS + ${WORKER_START_SECONDS:-600}))
    while kill -0 "$pid" 2>/dev/null; do
      if tail -c +"$((logged + 1))" "$log" | grep -q "@.* ready\.$"; then
        echo "Celery worker running (pid $pid, log: ${log#"$root"/})"; exit 0
      fi
      if [ "$SECONDS" -ge "$deadline" ]; then
        echo "Celery worker still starting (pid $pid); it goes on in the background, see $log"; exit 0
      fi
      sleep 0.5
    done
    if [ "$(cat "$pidfile" 2>/dev/null)" != "$pid" ]; then
      echo "Celery worker stopped before it was ready" >&2; exit 1
    fi
    rm -f "$pidfile"
    echo "Celery worker did not start; the end of $log:" >&2
    tail -c +"$((logged + 1))" "$log" | tail -n 15 >&2
    exit 1 ;;
  stop)
    if running; then
      pid="$(cat "$pidfile")"
      rm -f "$pidfile"  # first, so that a start still waiting for it knows it was stopped
      kill -TERM "$pid" 2>/dev/null || true  # a warm shutdown: tasks it runs finish, the queued ones stay queued
      deadline=$((SECONDS + ${WORKER_STOP_SECONDS:-60}))
      while ours "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
      if ours "$pid"; then kill -KILL -- "-$pid" 2>/dev/null || true; fi  # its session: the pool's processes too
    fi
    rm -f "$pidfile"; echo "Celery worker stopped" ;;
  status)
    if running; then echo "Celery worker running (pid $(cat "$pidfile"))"; else echo "Celery worker not running"; exit 3; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
