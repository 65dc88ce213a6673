"""Write a representative neo4j-agent-memory 0.8.0 graph through NAM's own API, then dump it as JSON.

Run by make_fixture.sh inside var/nam-venv (never the portal's .venv). NAM runs offline: its
extractor is off (messages name their entities through NAM's explicit mentions), its resolver is off
(so its own embedding de-duplication decides shared nodes and pending SAME_AS), and its embedder is
HashEmbedder below, passed through MemoryClient(embedder=...).
Usage: python write_graph.py BOLT_URL OUTPUT_JSON
"""

import asyncio
import hashlib
import json
import math
import sys
from datetime import date, datetime

from neo4j import GraphDatabase
from neo4j.time import Date, DateTime
from pydantic import SecretStr

from neo4j_agent_memory import MemoryClient, MemorySettings
from neo4j_agent_memory.config.settings import (
    ExtractionConfig,
    ExtractorType,
    Neo4jConfig,
    ResolutionConfig,
    ResolverStrategy,
)
from neo4j_agent_memory.schema.models import EntityRef

DIMENSIONS = 64


class HashEmbedder:
    """Embed text as hashed character trigrams: deterministic, offline, and close for close spellings."""

    dimensions = DIMENSIONS

    async def embed(self, text: str) -> list[float]:
        vector = [0.0] * DIMENSIONS
        padded = f"  {text.lower()}  "
        for i in range(len(padded) - 2):
            digest = hashlib.sha256(padded[i:i + 3].encode()).digest()
            vector[digest[0] % DIMENSIONS] += 1.0 if digest[1] % 2 else -1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    async def embed_batch(self, texts: list[str]) -> list[list[float]]:
        return [await self.embed(text) for text in texts]


# Each person: three sessions of messages; each message names the entities it mentions.
PEOPLE = {
    "nam-alice": [
        [("user", "I moved to Lisbon last spring and I work at Acme Corp now.",
          [("Lisbon", "LOCATION"), ("Acme Corp", "ORGANIZATION")]),
         ("assistant", "Lisbon is lovely. How is the new job at Acme Corp?", [("Lisbon", "LOCATION")]),
         ("user", "Great, my manager Marta Silva is very kind.", [("Marta Silva", "PERSON")]),
         ("assistant", "Glad to hear Marta Silva is supportive.", [("Marta Silva", "PERSON")])],
        [("user", "Please keep answers short, I prefer dark mode in every app.", []),
         ("assistant", "Noted: short answers.", []),
         ("user", "I am planning a trip to Porto for the Jazz Festival.",
          [("Porto", "LOCATION"), ("Jazz Festival", "EVENT")]),
         ("assistant", "The Jazz Festival in Porto is in July.", [("Jazz Festival", "EVENT")])],
        [("user", "My bike got a flat tyre near the Tagus river.", [("Tagus", "LOCATION")]),
         ("assistant", "There is a bike shop close to the Tagus.", []),
         ("user", "Acme pays for repairs, luckily.", [("Acme Corp", "ORGANIZATION")]),
         ("assistant", "Good that your employer covers it.", [])],
    ],
    "nam-bob": [
        [("user", "I live in Lisbon too, near the castle.", [("Lisbon", "LOCATION")]),
         ("assistant", "The castle area of Lisbon is beautiful.", [("Lisbon", "LOCATION")]),
         ("user", "I freelance for Acme Corp sometimes.", [("Acme Corp", "ORGANIZATION")]),
         ("assistant", "Freelancing for Acme Corp sounds flexible.", [])],
        [("user", "I prefer dark mode in every app, it is easier on my eyes.", []),
         ("assistant", "Dark mode it is.", []),
         ("user", "I play chess every Sunday with Rui Costa.", [("Rui Costa", "PERSON")]),
         ("assistant", "Chess with Rui Costa every Sunday, nice.", [])],
        [("user", "Recommend a vegetarian restaurant in Lisbon?", [("Lisbon", "LOCATION")]),
         ("assistant", "Try Ao 26 Vegan Food Project.", [("Ao 26 Vegan Food Project", "ORGANIZATION")]),
         ("user", "I love vegetarian food.", []),
         ("assistant", "I will remember that you love vegetarian food.", [])],
    ],
    "nam-carol": [
        [("user", "I am visiting Lisbon for a conference at Acme Corp.",
          [("Lisbon", "LOCATION"), ("Acme Corp", "ORGANIZATION")]),
         ("assistant", "Which conference at Acme Corp?", []),
         ("user", "Web Summit 2026, in November.", [("Web Summit", "EVENT")]),
         ("assistant", "Web Summit 2026 is a big one.", [("Web Summit", "EVENT")])],
        [("user", "I prefer dark mode in every app, please.", []),
         ("assistant", "Understood.", []),
         ("user", "My sister Ines lives in Porto.", [("Ines", "PERSON"), ("Porto", "LOCATION")]),
         ("assistant", "Do you plan to see Ines in Porto?", [])],
        [("user", "I drink my coffee black, no sugar.", []),
         ("assistant", "Black coffee, no sugar, noted.", []),
         ("user", "Book me a table near Lisbon airport.", [("Lisbon", "LOCATION")]),
         ("assistant", "I found two places near the airport.", [])],
    ],
}
PREFERENCES = {
    "nam-alice": [("ui", "prefers dark mode in every app"), ("communication", "keep answers short")],
    "nam-bob": [("ui", "prefers dark mode in every app"), ("food", "loves vegetarian food")],
    "nam-carol": [("ui", "prefers dark mode in every app"), ("drinks", "drinks coffee black, no sugar")],
}
# NAM's add_fact takes no user and no source: the first three name a NAM user as subject, the last names none.
FACTS = [
    ("nam-alice", "lives_in", "Lisbon"),
    ("nam-alice", "works_at", "Acme Corp"),
    ("nam-bob", "plays", "chess"),
    ("Acme Corp", "headquartered_in", "Lisbon"),
]


async def graph_write(url: str) -> None:
    settings = MemorySettings(
        neo4j=Neo4jConfig(uri=url, password=SecretStr("unused")),
        extraction=ExtractionConfig(extractor_type=ExtractorType.NONE),
        resolution=ResolutionConfig(strategy=ResolverStrategy.NONE),
    )
    async with MemoryClient(settings, embedder=HashEmbedder()) as client:
        for identifier, sessions in PEOPLE.items():
            await client.users.upsert_user(identifier=identifier, attributes={"display_name": identifier[4:].title()})
            for number, turns in enumerate(sessions, start=1):
                session_id = f"{identifier}-session-{number}"
                for role, content, mentions in turns:
                    await client.short_term.add_message(
                        session_id, role, content, user_identifier=identifier, extraction_mode="explicit",
                        explicit_mentions=[EntityRef(name=name, type=kind) for name, kind in mentions],
                    )
            for category, preference in PREFERENCES[identifier]:
                await client.long_term.add_preference(category, preference, user_identifier=identifier)
        # A close name of a stored event: NAM's de-duplication flags it as a pending SAME_AS, and
        # link_entity_to_message gives it its source (Entity)-[:EXTRACTED_FROM]->(Message).
        summit, result = await client.long_term.add_entity("Web Summit 2026", "EVENT")
        if result.action != "flagged":
            raise SystemExit(f"NAM did not flag 'Web Summit 2026': {result.action} {result.similarity_score}")
        carol_first = await client.short_term.get_conversation(session_id="nam-carol-session-1")
        await client.long_term.link_entity_to_message(summit, carol_first.messages[2].id)
        for subject, predicate, obj in FACTS:
            await client.long_term.add_fact(subject, predicate, obj)
        trace = await client.reasoning.start_trace(
            "nam-bob-session-3", "Find a vegetarian restaurant in Lisbon", user_identifier="nam-bob",
            triggered_by_message_id=(await client.short_term.get_conversation(
                session_id="nam-bob-session-3")).messages[0].id,
        )
        step = await client.reasoning.add_step(trace.id, thought="Search restaurants", action="search")
        await client.reasoning.record_tool_call(
            step.id, "restaurant_search", {"city": "Lisbon", "diet": "vegetarian"},
            result=[{"name": "Ao 26 Vegan Food Project"}], duration_ms=120,
        )
        step = await client.reasoning.add_step(trace.id, thought="Pick the best rated", action="answer",
                                               observation="Ao 26 Vegan Food Project")
        await client.reasoning.complete_trace(trace.id, outcome="Recommended Ao 26 Vegan Food Project", success=True)


def plain(value):
    if isinstance(value, DateTime):
        return {"$datetime": value.iso_format()}
    if isinstance(value, Date):
        return {"$date": value.iso_format()}
    if isinstance(value, (datetime, date)):
        return {"$datetime" if isinstance(value, datetime) else "$date": value.isoformat()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def graph_dump(url: str) -> dict:
    with GraphDatabase.driver(url, auth=("neo4j", "unused")) as driver, driver.session() as session:
        nodes = session.run("MATCH (n) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props "
                            "ORDER BY coalesce(n.id, n.name, n.identifier), labels(n)[0]").data()
        index = {node["id"]: number for number, node in enumerate(nodes)}
        rels = session.run("MATCH (a)-[r]->(b) RETURN elementId(a) AS a, elementId(b) AS b, type(r) AS type, "
                           "properties(r) AS props").data()
    return {
        "nodes": [{"labels": sorted(node["labels"]),
                   "properties": {k: plain(v) for k, v in sorted(node["props"].items())}} for node in nodes],
        "relationships": sorted(({"start": index[r["a"]], "end": index[r["b"]], "type": r["type"],
                                  "properties": {k: plain(v) for k, v in sorted(r["props"].items())}} for r in rels),
                                key=lambda r: (r["start"], r["end"], r["type"])),
    }


if __name__ == "__main__":
    url, output = sys.argv[1], sys.argv[2]
    asyncio.run(graph_write(url))
    with open(output, "w") as handle:
        json.dump(graph_dump(url), handle, indent=1, sort_keys=True)
        handle.write("\n")
