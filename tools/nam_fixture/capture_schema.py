"""Write the schema statements neo4j-agent-memory 0.8.0 runs on connect, as JSON, from NAM's own code.

NAM's SchemaManager.setup_all() runs against a recording client that says nothing exists yet, so
every constraint and index statement it would send is captured, for NAM's default vector size (1536,
OpenAI's) and for 384 (all-MiniLM-L6-v2, the portal's default). Its message search by vector
(SEARCH_MESSAGES_BY_EMBEDDING) is kept too, to prove the shared index serves it. No Neo4j needed.
Usage (inside var/nam-venv): python capture_schema.py OUTPUT_JSON
"""

import asyncio
import json
import sys
import textwrap

from neo4j_agent_memory.graph import queries
from neo4j_agent_memory.graph.schema import SchemaManager

DIMENSIONS = (1536, 384)


class RecordingClient:
    """Answer NAM's existence checks with 'no' and keep each write it sends."""

    def __init__(self):
        self.statements: list[str] = []

    async def check_constraint_exists(self, name: str) -> bool:
        return False

    async def check_index_exists(self, name: str) -> bool:
        return False

    async def execute_read(self, query: str, parameters: dict | None = None) -> list:
        return []

    async def execute_write(self, query: str, parameters: dict | None = None) -> list:
        if query.lstrip().upper().startswith("CREATE"):
            self.statements.append(" ".join(textwrap.dedent(query).split()))
        return []


async def statements(dimensions: int) -> list[str]:
    client = RecordingClient()
    await SchemaManager(client, vector_dimensions=dimensions, backfill_relation_types=False).setup_all()
    return client.statements


def main(output: str) -> None:
    schema = {
        "source": "neo4j-agent-memory 0.8.0, neo4j_agent_memory.graph.schema.SchemaManager.setup_all",
        "statements": {str(d): asyncio.run(statements(d)) for d in DIMENSIONS},
        "search_messages_by_embedding": " ".join(queries.SEARCH_MESSAGES_BY_EMBEDDING.split()),
    }
    with open(output, "w") as out:
        json.dump(schema, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
