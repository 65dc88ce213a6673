"""Writes to the knowledge graph and its profiles (agents only ever read it)."""

import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from neo4j.exceptions import ServiceUnavailable, SessionExpired
from neomodel import db

from knowledge import cypher
from knowledge.graph import CHUNK_FULLTEXT_INDEX, CHUNK_VECTOR_INDEX
from knowledge.models import RetrievalProfile
from knowledge.selectors import chunk_embeddings_get, retrieval_profile_problems
from memory.embeddings import get_embedder
from portal import graphdb

DEMO_FILE = Path(__file__).resolve().parent / "demo" / "companies.json"
DEMO_PROFILE = {
    "name": "demo-company-context",
    "description": "Hybrid search over the demo filings; each chunk comes with its company, document, "
    "and up to five risk factors and products.",
    "mode": RetrievalProfile.Mode.HYBRID,
    "ranker": RetrievalProfile.Ranker.MAX,
    "vector_index": CHUNK_VECTOR_INDEX,
    "fulltext_index": CHUNK_FULLTEXT_INDEX,
    "top_k": 5,
    "retrieval_query": cypher.COMPANY_CONTEXT_RETRIEVAL,
}


def knowledge_chunks_embed(
    *, companies: list[dict], known: dict[str, tuple[str, list[float]]] | None = None
) -> list[dict]:
    """Return the companies with each document's chunk texts turned into chunks with uid, seq and embedding.

    Chunks are keyed `<document uid>-<n>` by position, so loading the same data twice changes nothing;
    `known` maps chunk uids to their stored (text, embedding), reused while the text is unchanged.
    """
    known = known or {}
    texts = {_chunk_uid(d, n): text for c in companies for d in c["documents"] for n, text in enumerate(d["chunks"])}
    stale = [uid for uid, text in texts.items() if known.get(uid, ("",))[0] != text]
    embeddings = {uid: embedding for uid, (_, embedding) in known.items()}
    embeddings.update(zip(stale, get_embedder().embed([texts[uid] for uid in stale]).tolist()))
    return [
        {
            **company,
            "documents": [
                {
                    **d,
                    "chunks": [
                        {"uid": _chunk_uid(d, n), "seq": n, "text": text, "embedding": embeddings[_chunk_uid(d, n)]}
                        for n, text in enumerate(d["chunks"])
                    ],
                }
                for d in company["documents"]
            ],
        }
        for company in companies
    ]


def knowledge_graph_upsert(*, companies: list[dict]) -> None:
    """Merge embedded companies (see knowledge_chunks_embed) with their risks, products, documents and chunks."""
    with db.write_transaction:
        graphdb.run(cypher.DEMO_UPSERT, {"companies": companies})


@transaction.atomic
def retrieval_profile_upsert(*, name: str, **fields) -> RetrievalProfile:
    """Create or update the named profile after checking it against the graph."""
    profile = RetrievalProfile.objects.filter(name=name).first() or RetrievalProfile(name=name)
    for key, value in fields.items():
        setattr(profile, key, value)
    profile.full_clean()
    retrieval_profile_check(profile=profile)
    profile.save()
    return profile


def retrieval_profile_check(*, profile: RetrievalProfile) -> None:
    """Refuse a profile whose indexes are missing or whose retrieval query writes, naming each field's problems."""
    try:
        problems = retrieval_profile_problems(profile=profile)
    except (ServiceUnavailable, SessionExpired) as error:
        raise ValidationError("Neo4j is unavailable, so the profile cannot be checked; try again.") from error
    if problems:
        raise ValidationError(problems)


def knowledge_demo_load() -> tuple[int, RetrievalProfile]:
    """Load the shipped demo knowledge graph and its profile; return the chunk count and the profile."""

    data = json.loads(DEMO_FILE.read_text())
    uids = [_chunk_uid(d, n) for c in data["companies"] for d in c["documents"] for n in range(len(d["chunks"]))]
    known = chunk_embeddings_get(uids=uids)
    companies = knowledge_chunks_embed(companies=data["companies"], known=known)
    knowledge_graph_upsert(companies=companies)
    count = sum(len(document["chunks"]) for company in companies for document in company["documents"])
    return count, retrieval_profile_upsert(**DEMO_PROFILE)


def _chunk_uid(document: dict, seq: int) -> str:
    return f"{document['uid']}-{seq}"
