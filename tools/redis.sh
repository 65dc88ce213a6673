#!/usr/bin/env bash
# Start or stop a Redis on loopback for the broker and caches, unless one already answers.
# Usage: tools/redis.sh start|stop|status   (REDIS_PORT, default 6379)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
port="${REDIS_PORT:-6379}"
dir="$root/var/redis"

answers() { redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; }

case "${1:-}" in
  start)
    command -v redis-server >/dev/null || "$root/tools/apt-install.sh" redis-server
    if answers; then echo "Redis running on 127.0.0.1:$port"; exit 0; fi
    mkdir -p "$dir"
    redis-server --bind 127.0.0.1 --port "$port" --daemonize yes --dir "$dir" \
      --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --save "" --appendonly no
    deadline=$((SECONDS + 120))  # by the clock: a loaded machine is slow to start anything
    while [ "$SECONDS" -lt "$deadline" ]; do answers && { echo "Redis running on 127.0.0.1:$port"; exit 0; }; sleep 0.1; done
    echo "Redis did not start; see $dir/redis.log" >&2; exit 1 ;;
  stop)
    if answers; then redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; fi
    echo "Redis stopped" ;;
  status)
    if answers; then echo "Redis running on 127.0.0.1:$port"; else echo "Redis not running"; exit 3; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
