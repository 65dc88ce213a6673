"""neo4j-graphrag's retrievers as the oracle: on the same index our hits and scores must equal theirs."""

import pytest
from neo4j_graphrag.embeddings.base import Embedder
from neo4j_graphrag.retrievers import HybridCypherRetriever, HybridRetriever, VectorCypherRetriever, VectorRetriever
from neomodel import db

from knowledge import cypher
from knowledge.graph import CHUNK_FULLTEXT_INDEX, CHUNK_VECTOR_INDEX
from knowledge.models import RetrievalProfile
from knowledge.selectors import knowledge_search
from memory.embeddings import get_embedder

QUERIES = [
    "battery fire at a customer site",
    "which grocery chains buy most of the products",
    "robots next to people and product liability",
]


class PortalEmbedder(Embedder):
    def embed_query(self, text: str) -> list[float]:
        return get_embedder().embed([text])[0].tolist()


@pytest.fixture
def driver():
    db.cypher_query("RETURN 1")
    return db.driver


def hits(items):
    return [(item.uid, item.score) for item in items]


def oracle_hits(records):
    return [(record["node"]["uid"], record["score"]) for record in records]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("top_k, ratio", [(3, 1), (8, 2)])
def test_vector_hits_equal_vector_retriever(knowledge_graph, make_profile, driver, query, top_k, ratio):
    oracle = VectorRetriever(driver, CHUNK_VECTOR_INDEX, embedder=PortalEmbedder())
    profile = make_profile(mode=RetrievalProfile.Mode.VECTOR, top_k=top_k, effective_search_ratio=ratio)

    expected = oracle.get_search_results(query_text=query, top_k=top_k, effective_search_ratio=ratio).records

    assert hits(knowledge_search(profile=profile, query=query)) == oracle_hits(expected)


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("ranker, alpha", [("max", None), ("linear", 0.7), ("linear", 0.25)])
def test_hybrid_hits_equal_hybrid_retriever(knowledge_graph, make_profile, driver, query, ranker, alpha):
    oracle = HybridRetriever(driver, CHUNK_VECTOR_INDEX, CHUNK_FULLTEXT_INDEX, embedder=PortalEmbedder())
    profile = make_profile(mode=RetrievalProfile.Mode.HYBRID, ranker=ranker, alpha=alpha or 0.5, top_k=5)

    ranking = {"ranker": "naive"} if ranker == "max" else {"ranker": "linear", "alpha": alpha}
    expected = oracle.get_search_results(query_text=query, top_k=5, **ranking).records

    assert hits(knowledge_search(profile=profile, query=query)) == oracle_hits(expected)


def rows(items):
    return [(item.score, item.text, item.uid, item.metadata["company"], item.metadata["document"],
             sorted(item.metadata["risks"]), sorted(item.metadata["products"])) for item in items]


def oracle_rows(records):
    return [(r["score"], r["text"], r["uid"], r["company"], r["document"], sorted(r["risks"]), sorted(r["products"]))
            for r in sorted(records, key=lambda r: r["score"], reverse=True)]


@pytest.mark.parametrize("query", QUERIES[:2])
def test_enriched_rows_equal_the_cypher_retrievers(knowledge_graph, make_profile, driver, query):
    vector = make_profile(mode=RetrievalProfile.Mode.VECTOR, retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL)
    hybrid = make_profile(mode=RetrievalProfile.Mode.HYBRID, retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL)
    vector_oracle = VectorCypherRetriever(
        driver, CHUNK_VECTOR_INDEX, cypher.COMPANY_CONTEXT_RETRIEVAL, PortalEmbedder()
    )
    hybrid_oracle = HybridCypherRetriever(
        driver, CHUNK_VECTOR_INDEX, CHUNK_FULLTEXT_INDEX, cypher.COMPANY_CONTEXT_RETRIEVAL, PortalEmbedder()
    )

    assert rows(knowledge_search(profile=vector, query=query)) == oracle_rows(
        vector_oracle.get_search_results(query_text=query, top_k=5).records
    )
    assert rows(knowledge_search(profile=hybrid, query=query)) == oracle_rows(
        hybrid_oracle.get_search_results(query_text=query, top_k=5).records
    )
