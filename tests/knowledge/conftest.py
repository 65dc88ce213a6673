"""A small knowledge graph per test: the shipped demo filings, embedded, plus profiles over them."""

import json

import pytest

from knowledge import cypher
from knowledge.graph import CHUNK_FULLTEXT_INDEX, CHUNK_VECTOR_INDEX
from knowledge.models import RetrievalProfile
from knowledge.services import DEMO_FILE, knowledge_chunks_embed, knowledge_graph_upsert


@pytest.fixture(scope="session")
def embedded_companies():
    """Embed the demo chunks once per run; each test writes them into its own empty graph."""
    return knowledge_chunks_embed(companies=json.loads(DEMO_FILE.read_text())["companies"])


@pytest.fixture
def knowledge_graph(embedded_companies):
    knowledge_graph_upsert(companies=embedded_companies)
    return embedded_companies


@pytest.fixture
def make_profile():
    """Build an unsaved profile: search needs no relational database."""

    def make(**fields):
        defaults = {
            "name": "test-profile",
            "mode": RetrievalProfile.Mode.VECTOR,
            "vector_index": CHUNK_VECTOR_INDEX,
            "fulltext_index": CHUNK_FULLTEXT_INDEX,
            "top_k": 5,
        }
        return RetrievalProfile(**{**defaults, **fields})

    return make


@pytest.fixture
def enriched_profile(make_profile):
    return make_profile(
        name="company-context", mode=RetrievalProfile.Mode.HYBRID, retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL
    )
