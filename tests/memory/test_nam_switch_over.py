"""Switching over from neo4j-agent-memory 0.8.0: NAM itself reads what the portal wrote and keeps writing into the
same Neo4j, and the switch-over's adoption owns what it writes, so that an erasure leaves none of it."""

import asyncio

import pytest
from django.conf import settings
from neo4j_agent_memory import MemoryClient, MemorySettings
from neo4j_agent_memory.config.settings import ExtractionConfig, ExtractorType, Neo4jConfig, ResolutionConfig, \
    ResolverStrategy
from neomodel import db
from pydantic import SecretStr

from governance import services as governance
from governance.models import ErasureScope, JobStatus
from memory import ingest, services
from memory.embeddings import embedding_dimensions, get_embedder
from memory.models import Subject
from memory.tasks import nam_adopt_task
from tests.fixtures.nam import nam_adopt, nam_graph_load

pytestmark = pytest.mark.django_db
# What the person says through the portal, then through NAM; none of it may be left after the erasure.
PORTAL_SAYS = ["I started learning the cello with a teacher called Ingrid Berg.",
               "I prefer tea without sugar in the afternoon."]
NAM_SAYS = "My physiotherapy appointment moved to Thursday at the Alvalade clinic."
# NAM's add_fact takes no user: its facts name the person, as an agent on NAM writes them.
NAM_FACTS = [("Alice", "has_allergy", "penicillin"), ("Alice", "drives", "a green Fiat Panda"),
             ("nam-alice", "studies", "cello with Ingrid Berg"), ("alice", "owns", "a tabby cat named Miso")]
# NAM's add_entity takes no user either, and no message mentions these: their texts name the person.
NAM_ENTITIES = [("Doctor Helena Sousa", "PERSON", "the physician of nam-alice"),
                ("Alvalade Physio Clinic", "ORGANIZATION", "where nam-alice has her physiotherapy")]
CONTENT = ["cello", "Ingrid Berg", "physiotherapy", "penicillin", "Fiat Panda", "Miso", "Helena Sousa",
           "Alvalade", "nam-alice"]


class PortalEmbedder:
    """The portal's embedder behind NAM's embedder interface: both sides search one vector index."""

    dimensions = embedding_dimensions()

    async def embed(self, text: str) -> list[float]:
        return get_embedder().embed([text])[0].tolist()

    async def embed_batch(self, texts: list[str]) -> list[list[float]]:
        return [vector.tolist() for vector in get_embedder().embed(texts)]


def nam(work):
    """Run `work(client)` with a NAM 0.8.0 client on the suite's Neo4j (offline: no extractor, no resolver)."""
    config = MemorySettings(neo4j=Neo4jConfig(uri=settings.NEO4J_URL.replace("neo4j:neo4j@", ""),
                                              password=SecretStr("unused")),
                            extraction=ExtractionConfig(extractor_type=ExtractorType.NONE),
                            resolution=ResolutionConfig(strategy=ResolverStrategy.NONE))

    async def run():
        async with MemoryClient(config, embedder=PortalEmbedder()) as client:
            return await work(client)

    return asyncio.run(run())


@pytest.fixture
def nam_schema_dropped():
    """NAM installs its own constraints and indexes on connecting; drop the ones the portal has not, after."""
    before = {row[0] for query in ("SHOW CONSTRAINTS YIELD name", "SHOW INDEXES YIELD name")
              for row in db.cypher_query(query)[0]}
    yield
    for kind, query in (("CONSTRAINT", "SHOW CONSTRAINTS YIELD name"), ("INDEX", "SHOW INDEXES YIELD name")):
        for (name,) in db.cypher_query(query)[0]:
            if name not in before:
                db.cypher_query(f"DROP {kind} `{name}` IF EXISTS")


def holding(texts) -> list:
    """Return the labels and properties of nodes that hold any of these texts (an oracle the erasure does not use)."""
    found, _ = db.cypher_query(
        "MATCH (n) UNWIND keys(n) AS k WITH n, k WHERE n[k] IS :: STRING AND "
        "any(t IN $texts WHERE toLower(n[k]) CONTAINS toLower(t)) RETURN labels(n), k, n[k]", {"texts": list(texts)})
    return found


def test_nam_reads_what_the_portal_wrote_and_what_it_writes_later_is_owned_and_erased(
        make_agent, api_for, nam_schema_dropped):
    nam_graph_load()
    nam_adopt()
    alice = Subject.objects.get(user_id="nam-alice")
    agent, secret = make_agent()
    services.grant_create(subject=alice, agent=agent)
    api = api_for(secret)
    for session in ("nam-alice-session-2", "portal-session"):  # one NAM began, one the portal begins
        said = api.post(f"/api/v1/conversations/{session}/messages", {"user_id": "nam-alice", "messages": [
            {"role": "user", "content": text} for text in PORTAL_SAYS]}, format="json").json()
        for result in said["results"]:
            ingest.message_extract(message_uid=result["uid"], user_id="nam-alice")

    async def read_then_write(client):
        read = {
            "history": [m.content for m in (await client.short_term.get_conversation(
                session_id="portal-session")).messages],
            "continued": [m.content for m in (await client.short_term.get_conversation(
                session_id="nam-alice-session-2")).messages],
            "preferences": [p.preference for p in await client.long_term.search_preferences("tea", threshold=0.3)],
            "context": await client.get_context("cello lessons", session_id="portal-session"),
        }
        await client.short_term.add_message("nam-alice-session-2", "user", NAM_SAYS, user_identifier="nam-alice",
                                            extraction_mode="skip")
        for fact in NAM_FACTS:
            await client.long_term.add_fact(*fact)
        for name, kind, description in NAM_ENTITIES:
            await client.long_term.add_entity(name, kind, description=description)
        await client.long_term.add_preference("music", "practises cello every evening", user_identifier="nam-alice")
        return read

    read = nam(read_then_write)

    # NAM's own readers take the portal's nodes: no KeyError 'id', the messages in their order.
    assert read["history"] == PORTAL_SAYS
    assert read["continued"][-2:] == PORTAL_SAYS and len(read["continued"]) == 6
    assert "cello" in read["context"]
    unowned, _ = db.cypher_query("MATCH (n) WHERE n.user_id IS NULL AND (n:Message OR n:Fact OR n:Entity "
                                 "OR n:Preference) RETURN count(n)")
    assert unowned[0][0] >= 1 + len(NAM_FACTS) + len(NAM_ENTITIES) + 1

    # The portal answers in that conversation before the adoption runs: it appends after NAM's message.
    api.post("/api/v1/conversations/nam-alice-session-2/messages", {"user_id": "nam-alice", "messages": [
        {"role": "assistant", "content": "Noted, Thursday at the clinic."}]}, format="json")

    nam_adopt_task()  # the switch-over's Beat task

    owned, _ = db.cypher_query(
        "MATCH (n) WHERE n.user_id = 'nam-alice' AND (n.content = $said OR n.object IN $objects OR n.name IN $names "
        "OR n.preference = 'practises cello every evening') RETURN labels(n)[0], n.seq",
        {"said": NAM_SAYS, "objects": [f[2] for f in NAM_FACTS], "names": [e[0] for e in NAM_ENTITIES]})
    assert sorted(label for label, _ in owned) == ["Entity"] * 2 + ["Fact"] * 4 + ["Message", "Preference"]
    chain, _ = db.cypher_query(
        "MATCH (c:Conversation {session_id: 'nam-alice-session-2'})-[:FIRST_MESSAGE]->(first) "
        "MATCH p = (first)-[:NEXT_MESSAGE*0..]->(last) WHERE NOT (last)-[:NEXT_MESSAGE]->() "
        "RETURN [m IN nodes(p) | m.content], [m IN nodes(p) | m.seq], c.last_seq")
    [(contents, seqs, last_seq)] = chain
    assert contents[-2:] == [NAM_SAYS, "Noted, Thursday at the clinic."]
    assert len(set(seqs)) == len(seqs) == 8 and max(seqs) == last_seq  # one chain, each seq once
    listed = api.get("/api/v1/users/nam-alice/messages/", {"limit": 200}).json()["items"]
    assert NAM_SAYS in [item["content"] for item in listed]
    assert nam_adopt()["adopted"] == {}  # idempotent: nothing new to own

    job = governance.erasure_request(subject=alice, scope=ErasureScope.ALL)
    governance.subject_erase(job_id=job.pk)
    job.refresh_from_db()

    assert job.status == JobStatus.DONE, (job.error, job.tombstone.residue, job.tombstone.residue_hits)
    assert job.tombstone.residue == {"neo4j": 0, "redis": 0, "broker": 0, "database": 0, "files": 0, "content": 0}
    assert holding(CONTENT) == []
    left, _ = db.cypher_query("MATCH (f:Fact) WHERE toLower(f.subject) IN ['alice', 'nam-alice'] RETURN count(f)")
    assert left == [[0]]
