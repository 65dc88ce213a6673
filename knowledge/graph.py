"""The curated knowledge graph: neomodel node classes, declared once here and imported from here only.

Shared by all users and read-only for agents:
(:Chunk)-[:FROM_DOCUMENT]->(:Document)<-[:FILED]-(:Company)-[:FACES_RISK]->(:RiskFactor),
(:Company)-[:OFFERS]->(:Product). Chunks carry the text and embedding the retriever searches.
"""

from neomodel import (
    ArrayProperty,
    FloatProperty,
    FulltextIndex,
    IntegerProperty,
    RelationshipFrom,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    VectorIndex,
)

from memory.embeddings import embedding_dimensions

# neomodel names its indexes vector_index_<Label>_<property> and fulltext_index_<Label>_<property>.
CHUNK_VECTOR_INDEX = "vector_index_Chunk_embedding"
CHUNK_FULLTEXT_INDEX = "fulltext_index_Chunk_text"


class Company(StructuredNode):
    uid = StringProperty(unique_index=True, required=True)
    name = StringProperty(required=True)
    ticker = StringProperty()
    sector = StringProperty()
    documents = RelationshipTo("Document", "FILED")
    risks = RelationshipTo("RiskFactor", "FACES_RISK")
    products = RelationshipTo("Product", "OFFERS")


class Document(StructuredNode):
    uid = StringProperty(unique_index=True, required=True)
    title = StringProperty(required=True)
    kind = StringProperty()
    fiscal_year = IntegerProperty()
    company = RelationshipFrom("Company", "FILED")
    chunks = RelationshipFrom("Chunk", "FROM_DOCUMENT")


class Chunk(StructuredNode):
    uid = StringProperty(unique_index=True, required=True)
    seq = IntegerProperty(required=True)
    text = StringProperty(required=True, fulltext_index=FulltextIndex())
    embedding = ArrayProperty(FloatProperty(), vector_index=VectorIndex(dimensions=embedding_dimensions()))
    document = RelationshipTo("Document", "FROM_DOCUMENT")


class RiskFactor(StructuredNode):
    uid = StringProperty(unique_index=True, required=True)
    name = StringProperty(required=True)
    description = StringProperty()


class Product(StructuredNode):
    uid = StringProperty(unique_index=True, required=True)
    name = StringProperty(required=True)
    description = StringProperty()
