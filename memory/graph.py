"""The memory graph: neomodel node classes, declared once here and imported from here only.

The Cypher in cypher.py writes the graph and install_labels builds its constraints and indexes from
these classes; every property that Cypher writes is declared here (tests/memory/test_graph.py
checks it against what the product writes). Labels and relationship types follow
neo4j-agent-memory, so graphs it wrote can be governed here. Every memory node carries `uid` and
`user_id` (the subject's public id). A moment is a native Neo4j datetime; a time someone stated
("since 3 March 2025") stays a date, so those properties hold either (StatedTimeProperty).
"""

from datetime import date

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
    ZeroOrOne,
)
from neomodel.properties import Property, validator

from memory.extraction.results import ENTITY_TYPES as POLE_O_TYPES
from memory.extraction.results import POLARITIES, UNTYPED
from portal.graphdb import native

# What an entity may be stored as: a POLE+O type, or untyped (a name the extractor could not type).
ENTITY_TYPES = (*POLE_O_TYPES, UNTYPED)
SAME_AS_STATUSES = ("pending", "confirmed", "rejected", "auto")
FACT_STATUSES = ("current", "superseded", "retracted")
MESSAGE_ROLES = ("user", "assistant", "system", "tool")
CARDINALITIES = ("single", "multi")
EXTRACTION_STATUSES = ("pending", "done", "failed", "skipped", "held")


class StatedTimeProperty(Property):
    """A stated date (a Neo4j Date) or a moment (a Neo4j DateTime), kept as written."""

    form_field_class = "DateTimeField"

    @validator
    def inflate(self, value):
        return native(value)

    @validator
    def deflate(self, value):
        if not isinstance(value, date):
            raise ValueError(f"a date or datetime expected, got {value!r}")
        return value


def _embedding():
    """Return a vector property; its index is in memory.cypher.VECTOR_INDEXES, under NAM's name."""
    return ArrayProperty(FloatProperty())


class MemoryNode(StructuredNode):
    __abstract_node__ = True

    uid = UniqueIdProperty()
    user_id = StringProperty(required=True, index=True)
    nam_id = StringProperty(help_text="neo4j-agent-memory's id of a node adopt_nam adopted (its copies keep it too).")
    # Stored as `id` (neomodel's own `id` is the element id): NAM reads every node by it.
    reader_id = StringProperty(db_property="id", help_text="What neo4j-agent-memory reads the node by: NAM's own id "
                                                          "for a node it wrote, the uid for one the portal wrote.")


class User(MemoryNode):
    # One node per person, so concurrent first writes MERGE the same node and lock the same one.
    user_id = StringProperty(required=True, unique_index=True)
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    conversations = RelationshipTo("Conversation", "HAS_CONVERSATION")
    preferences = RelationshipTo("Preference", "HAS_PREFERENCE")


class Conversation(MemoryNode):
    session_id = StringProperty(required=True, index=True)
    agent_id = StringProperty(index=True)
    title = StringProperty()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    last_seq = IntegerProperty(default=0)
    tail_uid = StringProperty(help_text="The uid of the chain's last message (memory.cypher.clauses.CONVERSATION_TAIL).")
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
    speaker = StringProperty(help_text='The name a turn sent as "Name: text" is labelled with.')
    embedding = _embedding()
    embedding_int8 = ArrayProperty(IntegerProperty(), help_text=(
        "The vector's copy in signed bytes (memory.embeddings.int8_copy), stored as a byte array: recall scans it."))
    sentence_spans = ArrayProperty(IntegerProperty(), help_text=(
        "Where each of its sentences starts and ends in `content`, one pair after the other (memory.units); one pair "
        "for a message of one sentence."))
    sentence_embeddings_int8 = ArrayProperty(IntegerProperty(), help_text=(
        "Its sentences' vectors in signed bytes, one after the other, stored as a byte array: the context scores them."))
    seq = IntegerProperty(required=True)
    client_id = StringProperty(index=True)
    content_hash = StringProperty(index=True)
    agent_id = StringProperty()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now, index=True)
    stored_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    timestamp = DateTimeNeo4jFormatProperty(help_text="created_at as neo4j-agent-memory reads and orders messages "
                                                      "(the messages of one append a microsecond apart).")
    extraction_status = StringProperty(default="pending", choices={s: s for s in EXTRACTION_STATUSES}, index=True)
    extraction_error = StringProperty()
    explicit = StringProperty(help_text="The entities, facts and preferences the agent sent with it, as JSON.")
    tool_name = StringProperty(help_text="A tool's message: the tool whose output it holds.")
    source_url = StringProperty(help_text="A tool's message: the address its content was read from.")
    held_reasons = ArrayProperty(StringProperty(), help_text=(
        "Why a message from an untrusted source is held out of recall (memory.trust), in plain words."))
    withheld = ArrayProperty(StringProperty(), help_text=(
        "Why a message is no longer given to agents by the person's decision (an instruction it gave revoked, what "
        "it would add rejected, something it said forgotten), in plain words."))
    forgotten = ArrayProperty(StringProperty(), help_text=(
        "The uids of what the person forgot that this message stated: extracting it again leaves them out."))
    next_message = RelationshipTo("Message", "NEXT_MESSAGE", cardinality=ZeroOrOne)
    mentions = RelationshipTo("Entity", "MENTIONS", model=Mention)


class RelatedTo(StructuredRel):
    type = StringProperty(required=True)
    confidence = FloatProperty()
    valid_from = StatedTimeProperty()
    valid_until = StatedTimeProperty()
    message_uid = StringProperty()
    first_key = StringProperty(help_text="The order key of its earliest statement.")


class SameAs(StructuredRel):
    status = StringProperty(required=True, choices={s: s for s in SAME_AS_STATUSES})
    confidence = FloatProperty()
    scores = JSONProperty()
    evidence = JSONProperty()
    evidence_key = StringProperty()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    added_aliases = ArrayProperty(StringProperty(), default=list, help_text="Taken back by an undo.")
    undone_from = StringProperty(choices={s: s for s in SAME_AS_STATUSES})
    decided_by = StringProperty()
    decided_at = DateTimeNeo4jFormatProperty()


class ExtractedFrom(StructuredRel):
    """One statement of a fact or preference: its message, order key and stated valid time."""

    key = StringProperty()
    valid_from = StatedTimeProperty()
    correction_id = StringProperty(help_text="Set on a statement a correction carried over to its new version.")
    via = StringProperty(help_text="On a preference: the uid of the duplicate whose statement it carries (one liking "
                                   "said in other words).")


class SupersededBy(StructuredRel):
    confirmed_at = DateTimeNeo4jFormatProperty()
    confirmed_by = StringProperty()
    reverted_at = DateTimeNeo4jFormatProperty()
    reverted_by = StringProperty()
    reason = StringProperty(help_text="'duplicate' when a preference says the liking another said first, in other "
                                      "words; 'correction' when a person or reviewer corrected it.")
    merged_at = DateTimeNeo4jFormatProperty()
    correction_id = StringProperty()
    corrected_at = DateTimeNeo4jFormatProperty()
    corrected_by = StringProperty()


class Entity(MemoryNode):
    name = StringProperty(required=True)
    type = StringProperty(required=True, choices={t: t for t in ENTITY_TYPES})
    aliases = ArrayProperty(StringProperty(), default=list)
    description = StringProperty()
    embedding = _embedding()
    created_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    key = StringProperty(help_text="The normal name; unique per person and type (memory.cypher.SCHEMA).")
    first_key = StringProperty(help_text="The order key of its earliest statement.")
    correction_id = StringProperty(help_text="The correction that set its name, type and aliases; extraction keeps them.")
    corrected_by = StringProperty()
    related = RelationshipTo("Entity", "RELATED_TO", model=RelatedTo)
    same_as = RelationshipTo("Entity", "SAME_AS", model=SameAs)
    mentioned_in = RelationshipFrom("Message", "MENTIONS", model=Mention)


class StatedNode(MemoryNode):
    """A fact or a preference: one node however often it is said, each statement an EXTRACTED_FROM its message; its
    validity is settled from all of them (memory.ingest), and a correction makes a new version of it."""

    __abstract_node__ = True

    embedding = _embedding()
    confidence = FloatProperty()
    valid_from = StatedTimeProperty()
    valid_until = StatedTimeProperty()
    recorded_at = DateTimeNeo4jFormatProperty(default=timezone.now)
    first_key = StringProperty(help_text="The order key of its earliest statement.")
    correction_id = StringProperty(help_text="On a corrected version: the correction that made it.")
    corrected_by = StringProperty()
    corrects = StringProperty(help_text="On a corrected version: the uid of the version it corrected.")
    extracted_from = RelationshipTo("Message", "EXTRACTED_FROM", model=ExtractedFrom)


class Fact(StatedNode):
    subject = StringProperty(required=True)
    predicate = StringProperty(required=True, index=True)
    object = StringProperty(required=True)
    cardinality = StringProperty(choices={c: c for c in CARDINALITIES})
    expired_at = DateTimeNeo4jFormatProperty()
    status = StringProperty(default="current", choices={s: s for s in FACT_STATUSES}, index=True)
    nam_subject = StringProperty(help_text="The subject neo4j-agent-memory gave it: the NAM user's identifier.")
    stated_from = StatedTimeProperty(help_text="A valid_from the correction stated.")
    stated_until = StatedTimeProperty(help_text="A valid_until the correction stated: it held until then.")
    about = RelationshipTo("Entity", "ABOUT")
    superseded_by = RelationshipTo("Fact", "SUPERSEDED_BY", cardinality=ZeroOrOne, model=SupersededBy)


class Preference(StatedNode):
    category = StringProperty(required=True, index=True)
    preference = StringProperty(required=True)
    topic = StringProperty()
    # What two topics said in other words share (memory.extraction.rules.preference_topic_key): the node's key.
    topic_key = StringProperty()
    polarity = StringProperty(choices={p: p for p in POLARITIES})
    context = StringProperty()
    status = StringProperty(default="current", choices={s: s for s in FACT_STATUSES})
    kept_apart = BooleanProperty(help_text="Its merge as a duplicate was undone: it is never merged by meaning again.")
    superseded_by = RelationshipTo("Preference", "SUPERSEDED_BY", cardinality=ZeroOrOne, model=SupersededBy)


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
    held_reasons = ArrayProperty(StringProperty(), help_text=(
        "Why a completed trace is held out of what contexts serve (memory.trust), in plain words."))
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


NODES = (User, Conversation, Message, Entity, Fact, Preference, ReasoningTrace, ReasoningStep, ToolCall)
