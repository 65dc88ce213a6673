"""Raw Cypher of the knowledge app, as named constants with $parameters.

The search queries end with `node` and `score` in scope; a profile's retrieval query (or
PLAIN_RETURN) follows them. VECTOR_SEARCH and HYBRID_MAX are neo4j-graphrag's own queries
(VectorRetriever, HybridRetriever with the naive ranker), so both return the same hits and scores.
"""

# A search's hits: the first `top_k` of an index's, as `node` and `score`.
_VECTOR_HITS = ("CALL db.index.vector.queryNodes($vector_index_name, $top_k * $effective_search_ratio, $query_vector) "
                "YIELD node, score "
                "WITH node, score LIMIT $top_k ")
_FULLTEXT_HITS = ("CALL db.index.fulltext.queryNodes($fulltext_index_name, $query_text, {limit: $top_k}) "
                  "YIELD node, score ")

VECTOR_SEARCH = _VECTOR_HITS.strip()
FULLTEXT_SEARCH = _FULLTEXT_HITS + "WITH node, score LIMIT $top_k"


def _normalised(best: str, weight: str = "") -> str:
    """Return a list's hits with each score divided by the list's best (and by a weight)."""
    return ("WITH collect({node: node, score: score}) AS nodes, max(score) AS " + best + " "
            "UNWIND nodes AS n "
            "RETURN n.node AS node, (n.score / " + best + ")" + weight + " AS score ")


def _hybrid(*, vector: str, fulltext: str, combined: str) -> str:
    """Return both indexes' hits, each list made comparable (vector, fulltext), combined per node and ranked."""
    return ("CALL () { " + _VECTOR_HITS + vector + "UNION ALL " + _FULLTEXT_HITS + fulltext + "} "
            "WITH node, " + combined + " AS score ORDER BY score DESC, elementId(node) LIMIT $top_k")


# Both lists are normalised by their best score, then a node keeps its better one.
HYBRID_MAX = _hybrid(vector=_normalised("vector_index_max_score"), fulltext=_normalised("ft_index_max_score"),
                     combined="max(score)")

# alpha * normalised vector score + (1 - alpha) * normalised fulltext score. UNION ALL, not
# neo4j-graphrag's UNION: with UNION a node scoring the same in both lists is counted once.
HYBRID_LINEAR = _hybrid(vector=_normalised("vector_index_max_score", " * $alpha"),
                        fulltext=_normalised("ft_index_max_score", " * (1 - $alpha)"), combined="sum(score)")

# Reciprocal-rank fusion: each list adds 1 / (rrf_k + rank), rank counted from 1.
_RANKED = ("WITH collect(node) AS nodes "
           "UNWIND range(0, size(nodes) - 1) AS i "
           "RETURN nodes[i] AS node, 1.0 / ($rrf_k + i + 1) AS score ")
HYBRID_RRF = _hybrid(vector=_RANKED, fulltext=_RANKED, combined="sum(score)")

PLAIN_RETURN = "RETURN node.text AS text, score, node.uid AS uid"

# The demo profile's enrichment: chunk -> document -> company, then the company's risks and its
# products, each collected in a pass of its own (no risks x products product), five at most.
COMPANY_CONTEXT_RETRIEVAL = (
    "OPTIONAL MATCH (node)-[:FROM_DOCUMENT]->(doc)<-[:FILED]-(company) "
    "WITH node, score, doc, company "
    "OPTIONAL MATCH (company)-[:FACES_RISK]->(risk) "
    "WITH node, score, doc, company, collect(DISTINCT risk.name)[..5] AS risks "
    "OPTIONAL MATCH (company)-[:OFFERS]->(product) "
    "WITH node, score, doc, company, risks, collect(DISTINCT product.name)[..5] AS products "
    "RETURN node.text AS text, score, node.uid AS uid, company.name AS company, "
    "doc.title AS document, risks, products"
)

INDEXES = (
    "SHOW INDEXES YIELD name, type, entityType, options "
    "RETURN name, type, entityType, options.indexConfig['vector.dimensions'] AS dimensions"
)

CHUNK_EMBEDDINGS = (
    "MATCH (c:Chunk) WHERE c.uid IN $uids AND c.embedding IS NOT NULL "
    "RETURN c.uid AS uid, c.text AS text, c.embedding AS embedding"
)

DEMO_UPSERT = (
    "UNWIND $companies AS c "
    "MERGE (company:Company {uid: c.uid}) SET company.name = c.name, company.ticker = c.ticker, "
    "company.sector = c.sector "
    "WITH company, c "
    "CALL (company, c) { "
    "UNWIND c.risks AS r "
    "MERGE (risk:RiskFactor {uid: r.uid}) SET risk.name = r.name, risk.description = r.description "
    "MERGE (company)-[:FACES_RISK]->(risk) } "
    "CALL (company, c) { "
    "UNWIND c.products AS p "
    "MERGE (product:Product {uid: p.uid}) SET product.name = p.name, product.description = p.description "
    "MERGE (company)-[:OFFERS]->(product) } "
    "CALL (company, c) { "
    "UNWIND c.documents AS d "
    "MERGE (doc:Document {uid: d.uid}) SET doc.title = d.title, doc.kind = d.kind, doc.fiscal_year = d.fiscal_year "
    "MERGE (company)-[:FILED]->(doc) "
    "WITH doc, d "
    "UNWIND d.chunks AS ch "
    "MERGE (chunk:Chunk {uid: ch.uid}) SET chunk.seq = ch.seq, chunk.text = ch.text, chunk.embedding = ch.embedding "
    "MERGE (chunk)-[:FROM_DOCUMENT]->(doc) }"
)

# The benchmark's own graph: every node also carries KnowledgeBench, so it is found and removed by
# that label alone, and its indexes are its own (the demo's are never touched).
BENCH_VECTOR_INDEX = "bench_chunk_embedding"
BENCH_FULLTEXT_INDEX = "bench_chunk_text"
BENCH_FOREIGN_NODES = "MATCH (n) WHERE NOT n:KnowledgeBench RETURN count(n)"
BENCH_SCHEMA = [
    "CREATE INDEX bench_document_uid IF NOT EXISTS FOR (d:BenchDocument) ON (d.uid)",
]
BENCH_SEARCH_SCHEMA = [
    "CREATE VECTOR INDEX bench_chunk_embedding IF NOT EXISTS FOR (c:BenchChunk) ON (c.embedding) "
    "OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}",
    "CREATE FULLTEXT INDEX bench_chunk_text IF NOT EXISTS FOR (c:BenchChunk) ON EACH [c.text]",
]
BENCH_AWAIT_INDEXES = "CALL db.awaitIndexes($seconds)"
BENCH_DROP = [
    "DROP INDEX bench_chunk_embedding IF EXISTS",
    "DROP INDEX bench_chunk_text IF EXISTS",
    "DROP INDEX bench_document_uid IF EXISTS",
]
BENCH_COMPANIES = (
    "UNWIND $companies AS c "
    "CREATE (company:BenchCompany:KnowledgeBench {uid: c.uid, name: c.name}) "
    "FOREACH (r IN c.risks | CREATE (company)-[:FACES_RISK]->(:BenchRisk:KnowledgeBench {name: r})) "
    "FOREACH (p IN c.products | CREATE (company)-[:OFFERS]->(:BenchProduct:KnowledgeBench {name: p})) "
    "FOREACH (d IN c.documents | "
    "CREATE (company)-[:FILED]->(:BenchDocument:KnowledgeBench {uid: d.uid, title: d.title}))"
)
BENCH_CHUNKS = (
    "UNWIND $chunks AS row "
    "MATCH (doc:BenchDocument {uid: row.document}) "
    "CREATE (:BenchChunk:KnowledgeBench {uid: row.uid, text: row.text, embedding: row.embedding})"
    "-[:FROM_DOCUMENT]->(doc)"
)
BENCH_CHUNK_VECTORS = "MATCH (c:BenchChunk) RETURN c.uid AS uid, c.embedding AS embedding"
BENCH_CLEAN = "MATCH (n:KnowledgeBench) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
