"""The memory graph: neomodel node classes, declared once here and imported from here only.

Labels and relationship types follow neo4j-agent-memory, so graphs it wrote can be governed here.
Every memory node carries `uid` and `user_id` (the subject's public id). Times are native Neo4j
datetimes, as the Cypher in cypher.py writes them.
"""

from django.utils import timezone
from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    JSONProperty,
    RelationshipFrom,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    UniqueIdProperty,
    VectorIndex,
    ZeroOrOne,
)

from memory.embeddings import embedding_dimensions

ENTITY_TYPES = ("PERSON", "ORGANIZATION", "LOCATION", "EVENT", "OBJECT")
SAME_AS_STATUSES = ("pending", "confirmed", "rejected", "auto")
FACT_STATUSES = ("current", "superseded", "retracted")
MESSAGE_ROLES = ("user", "assistant", "system", "tool")
EXTRACTION_STATUSES = ("pending", "done", "failed", "skipped")


def _embedding():
    return ArrayProperty(FloatProperty(), vector_index=VectorIndex(dimensions=embedding_dimensions()))


class MemoryNode(StructuredNode):
    __abstract_node__ = True

    uid = UniqueIdProperty()
    user_id = StringProperty(required=True, index=True)


class User(MemoryNode):
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    conversations = RelationshipTo("Conversation", "HAS_CONVERSATION")
    preferences = RelationshipTo("Preference", "HAS_PREFERENCE")


class Conversation(MemoryNode):
    session_id = StringProperty(required=True, index=True)
    agent_id = StringProperty(index=True)
    title = StringProperty()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    messages = RelationshipTo("Message", "HAS_MESSAGE")
    first_message = RelationshipTo("Message", "FIRST_MESSAGE", cardinality=ZeroOrOne)
    traces = RelationshipTo("ReasoningTrace", "HAS_TRACE")


class Mention(StructuredRel):
    confidence = FloatProperty()
    start = IntegerProperty()
    end = IntegerProperty()


class Message(MemoryNode):
    role = StringProperty(required=True, choices={r: r for r in MESSAGE_ROLES})
    content = StringProperty(required=True)
    embedding = _embedding()
    seq = IntegerProperty(required=True)
    client_id = StringProperty(index=True)
    content_hash = StringProperty(index=True)
    agent_id = StringProperty()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now, index=True)
    extraction_status = StringProperty(default="pending", choices={s: s for s in EXTRACTION_STATUSES})
    extraction_error = StringProperty()
    next_message = RelationshipTo("Message", "NEXT_MESSAGE", cardinality=ZeroOrOne)
    mentions = RelationshipTo("Entity", "MENTIONS", model=Mention)


class RelatedTo(StructuredRel):
    type = StringProperty(required=True)
    confidence = FloatProperty()
    valid_from = DateTimeNeo4jFormatProperty()
    valid_until = DateTimeNeo4jFormatProperty()


class SameAs(StructuredRel):
    status = StringProperty(required=True, choices={s: s for s in SAME_AS_STATUSES})
    confidence = FloatProperty()
    scores = JSONProperty()
    decided_by = StringProperty()
    decided_at = DateTimeNeo4jFormatProperty()


class Entity(MemoryNode):
    name = StringProperty(required=True)
    type = StringProperty(required=True, choices={t: t for t in ENTITY_TYPES})
    aliases = ArrayProperty(StringProperty(), default=list)
    description = StringProperty()
    embedding = _embedding()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    related = RelationshipTo("Entity", "RELATED_TO", model=RelatedTo)
    same_as = RelationshipTo("Entity", "SAME_AS", model=SameAs)
    mentioned_in = RelationshipFrom("Message", "MENTIONS", model=Mention)


class Fact(MemoryNode):
    subject = StringProperty(required=True)
    predicate = StringProperty(required=True, index=True)
    object = StringProperty(required=True)
    embedding = _embedding()
    confidence = FloatProperty()
    valid_from = DateTimeNeo4jFormatProperty()
    valid_until = DateTimeNeo4jFormatProperty()
    recorded_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    expired_at = DateTimeNeo4jFormatProperty()
    status = StringProperty(default="current", choices={s: s for s in FACT_STATUSES}, index=True)
    about = RelationshipTo("Entity", "ABOUT")
    extracted_from = RelationshipTo("Message", "EXTRACTED_FROM")
    superseded_by = RelationshipTo("Fact", "SUPERSEDED_BY", cardinality=ZeroOrOne)


class Preference(MemoryNode):
    category = StringProperty(required=True, index=True)
    preference = StringProperty(required=True)
    context = StringProperty()
    embedding = _embedding()
    confidence = FloatProperty()
    valid_from = DateTimeNeo4jFormatProperty(default=timezone.now)
    valid_until = DateTimeNeo4jFormatProperty()
    status = StringProperty(default="current", choices={s: s for s in FACT_STATUSES})
    extracted_from = RelationshipTo("Message", "EXTRACTED_FROM")
    superseded_by = RelationshipTo("Preference", "SUPERSEDED_BY", cardinality=ZeroOrOne)


class HasStep(StructuredRel):
    order = IntegerProperty(required=True)


class ReasoningTrace(MemoryNode):
    session_id = StringProperty(index=True)
    agent_id = StringProperty(index=True)
    task = StringProperty(required=True)
    task_embedding = _embedding()
    outcome = StringProperty()
    success = BooleanProperty()
    started_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    completed_at = DateTimeNeo4jFormatProperty()
    steps = RelationshipTo("ReasoningStep", "HAS_STEP", model=HasStep)


class ReasoningStep(MemoryNode):
    thought = StringProperty()
    action = StringProperty()
    observation = StringProperty()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    tool_calls = RelationshipTo("ToolCall", "HAS_TOOL_CALL")


class ToolCall(MemoryNode):
    tool_name = StringProperty(required=True)
    arguments = JSONProperty()
    result = JSONProperty()
    status = StringProperty()
    error = StringProperty()
    duration_ms = FloatProperty()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
