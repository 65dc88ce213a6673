#!/usr/bin/env bash
# Write tests/fixtures/nam_graph.json: a graph neo4j-agent-memory 0.8.0 wrote through its own API.
# NAM gets its own virtual environment (var/nam-venv) and a throwaway Neo4j (var/neo4j-nam, port 7679),
# which is stopped and removed afterwards. Settings: NAM_NEO4J_PORT, NAM_FIXTURE_OUTPUT.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/var/nam-venv"
port="${NAM_NEO4J_PORT:-7679}"
output="${NAM_FIXTURE_OUTPUT:-$root/tests/fixtures/nam_graph.json}"
export NEO4J_HOME="$root/var/neo4j-nam" NEO4J_BOLT_PORT="$port" NEO4J_PAGECACHE=128m NEO4J_HEAP=512m

if [ ! -x "$venv/bin/python" ]; then "$("$root/tools/python.sh")" -m venv "$venv"; fi
"$venv/bin/python" -m pip install --quiet "neo4j-agent-memory==0.8.0"

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "Port $port already answers: NAM must write into a Neo4j of its own; set NAM_NEO4J_PORT." >&2; exit 1
fi
rm -rf "$NEO4J_HOME"
"$root/tools/neo4j/neo4j.sh" start
trap '"$root/tools/neo4j/neo4j.sh" stop; rm -rf "$NEO4J_HOME"' EXIT
"$venv/bin/python" "$here/write_graph.py" "bolt://127.0.0.1:$port" "$output"
echo "Wrote $output"
