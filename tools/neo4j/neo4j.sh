#!/usr/bin/env bash
# Start, stop or report the embedded Neo4j Community used for local development and CI.
# Usage: tools/neo4j/neo4j.sh start|stop|status
# Settings (environment): NEO4J_HOME, NEO4J_BOLT_PORT, NEO4J_PASSWORD, NEO4J_PAGECACHE, NEO4J_HEAP, NEO4J_START_SECONDS,
# NEO4J_LINE (5.26, the LTS on Java 17+, by default; or 2026, the calendar line on Java 21+),
# NEO4J_VERSION (a version of that line other than the one named below), NEO4J_JAVA (a java binary),
# NEO4J_JVM_OPTIONS (more JVM flags, e.g. -XX:TieredStopAtLevel=1 for a Neo4j that lives for a few tests).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export NEO4J_HOME="${NEO4J_HOME:-$root/var/neo4j}"
export NEO4J_BOLT_PORT="${NEO4J_BOLT_PORT:-7687}"
heap="${NEO4J_HEAP:-1g}"
line="${NEO4J_LINE:-5.26}"
case "$line" in
  5.26) version="${NEO4J_VERSION:-5.26.30}" java_major=17 ;;
  2026) version="${NEO4J_VERSION:-2026.08.1}" java_major=21 ;;
  *) echo "NEO4J_LINE must be 5.26 or 2026; got $line" >&2; exit 2 ;;
esac
lib="$here/lib/$version"
pidfile="$NEO4J_HOME/launcher.pid"
logfile="$NEO4J_HOME/launcher.log"

instead() {
  echo "  Or use an existing Neo4j 5.26+ or Aura instead: set NEO4J_URL, e.g." >&2
  echo "    NEO4J_URL=neo4j+s://neo4j:password@xxxx.databases.neo4j.io" >&2
}

running() {
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

bolt_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$NEO4J_BOLT_PORT") 2>/dev/null
}

fetch_jars() {
  if [ -f "$lib/.complete" ]; then return; fi
  if ! command -v mvn >/dev/null; then
    echo "Maven (mvn) is missing: it fetches the Neo4j jars. Install it (apt-get install maven)." >&2
    instead; exit 1
  fi
  echo "Fetching Neo4j $version jars from Maven Central into tools/neo4j/lib/$version ..."
  rm -rf "$lib"
  mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -Dneo4j.version="$version" \
    -DoutputDirectory="$lib" -DincludeScope=runtime
  touch "$lib/.complete"
}

# The launcher compiled once per version of its source: the procedures it registers are loaded by class name,
# which a class compiled in memory (java Neo4jLauncher.java) is not.
compile_launcher() {
  classes="$lib/launcher-$(sha256sum "$here/Neo4jLauncher.java" | cut -c1-12)"
  if [ -f "$classes/Neo4jLauncher.class" ]; then return; fi
  rm -rf "$lib"/launcher-*
  mkdir -p "$classes"
  "$(dirname "$(readlink -f "$1")")/javac" -nowarn -d "$classes" -cp "$lib/*" "$here/Neo4jLauncher.java"
}

java_version() {
  "$1" -version 2>&1 | sed -nE '1s/.*version "(1\.)?([0-9]+).*/\2/p'
}

# NEO4J_JAVA, else the java on PATH, else the newest JDK under /usr/lib/jvm, whichever is new enough.
find_java() {
  local candidate
  for candidate in ${NEO4J_JAVA:-} "$(command -v java || true)" $(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | sort -rV); do
    if [ -x "$candidate" ] && [ "$(java_version "$candidate")" -ge "$java_major" ] 2>/dev/null; then
      echo "$candidate"; return
    fi
  done
}

start() {
  if running; then echo "Neo4j already running (pid $(cat "$pidfile")) on bolt://127.0.0.1:$NEO4J_BOLT_PORT"; return; fi
  if bolt_open; then echo "Something else already listens on 127.0.0.1:$NEO4J_BOLT_PORT; using it."; return; fi
  java="$(find_java)"
  if [ -z "$java" ]; then
    echo "Java $java_major or newer is missing: it runs Neo4j $line. Install it (apt-get install openjdk-$java_major-jre-headless)," >&2
    echo "  or point NEO4J_JAVA at one." >&2
    instead; exit 1
  fi
  fetch_jars
  compile_launcher "$java"
  mkdir -p "$NEO4J_HOME"
  # JVM flags from the ones Neo4j's own neo4j.conf ships.
  nohup "$java" -Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow \
    -XX:+UnlockExperimentalVMOptions -XX:+TrustFinalNonStaticFields -XX:+DisableExplicitGC \
    -Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true \
    -Dlog4j2.disable.jmx=true ${NEO4J_JVM_OPTIONS:-} \
    --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED \
    -cp "$lib/*:$classes" Neo4jLauncher >"$logfile" 2>&1 &
  echo $! >"$pidfile"
  # Waited for by the clock, not by a count of polls: a loaded machine takes minutes where an idle one takes seconds.
  deadline=$((SECONDS + ${NEO4J_START_SECONDS:-600}))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if grep -q "NEO4J READY" "$logfile" 2>/dev/null && bolt_open; then
      echo "Neo4j $version running on bolt://127.0.0.1:$NEO4J_BOLT_PORT (data in $NEO4J_HOME)"; return
    fi
    if ! running; then echo "Neo4j failed to start; last lines of $logfile:" >&2; tail -20 "$logfile" >&2; exit 1; fi
    sleep 0.5
  done
  echo "Neo4j did not answer on Bolt within ${NEO4J_START_SECONDS:-600} s; see $logfile" >&2; exit 1
}

stop() {
  if ! running; then echo "Neo4j not running"; rm -f "$pidfile"; return; fi
  pid="$(cat "$pidfile")"
  kill "$pid"
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; fi
  rm -f "$pidfile"
  echo "Neo4j stopped"
}

status() {
  if running && bolt_open; then echo "Neo4j running (pid $(cat "$pidfile")) on bolt://127.0.0.1:$NEO4J_BOLT_PORT"
  elif running; then echo "Neo4j starting (pid $(cat "$pidfile"))"; exit 3
  else echo "Neo4j not running"; exit 3; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
