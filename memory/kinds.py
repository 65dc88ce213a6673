"""The kinds of memory a person or an agent can list, read, search and forget: one registry every app reads.

A kind names its graph label, its consent category, how the pages title it, the properties shown,
the Cypher that lists, reads, searches and forgets it (one item, or what is past retention), the labels that go
with it when its category is erased, and its section of the context with that section's default limit.
"""

from dataclasses import dataclass, field

from memory import cypher


@dataclass(frozen=True)
class Kind:
    name: str
    label: str
    category: str
    title: str
    item_title: str
    item_type: str
    order_by: str
    fields: tuple[str, ...]
    search_query: str
    section: str
    default_limit: int
    erase_labels: tuple[str, ...] = ()
    list_query: str = field(init=False)
    get_query: str = field(init=False)
    forget_query: str = field(init=False)
    expired_forget_query: str = field(init=False)
    expired_count_query: str = field(init=False)

    def __post_init__(self):
        # Built once from the fixed table below, never from input.
        object.__setattr__(self, "list_query", cypher.item_list(label=self.label, order=self.order_by,
                                                                fields=self.fields))
        object.__setattr__(self, "get_query", cypher.item_get(label=self.label, fields=self.fields))
        object.__setattr__(self, "forget_query", cypher.node_forget(label=self.label))
        object.__setattr__(self, "expired_forget_query", cypher.expired_forget(label=self.label))
        object.__setattr__(self, "expired_count_query", cypher.expired_count(label=self.label))
        object.__setattr__(self, "erase_labels", self.erase_labels or (self.label,))


MESSAGES = Kind(
    name="messages", label="Message", category="history", title="Messages", item_title="Message",
    item_type="message", order_by="created_at",
    fields=("role", "content", "seq", "client_id", "agent_id", "created_at", "extraction_status",
            "extraction_error", "tool_name", "source_url", "held_reasons", "withheld"),
    search_query=cypher.MESSAGES_SEARCH, section="Earlier messages:", default_limit=15,
)
FACTS = Kind(
    name="facts", label="Fact", category="long_term", title="Facts", item_title="Fact", item_type="fact",
    order_by="recorded_at",
    fields=("subject", "predicate", "object", "confidence", "valid_from", "valid_until", "recorded_at",
            "expired_at", "status", "corrected_by"),
    search_query=cypher.FACTS_SEARCH, section="Facts:", default_limit=10,
)
PREFERENCES = Kind(
    name="preferences", label="Preference", category="long_term", title="Preferences", item_title="Preference",
    item_type="preference", order_by="valid_from",
    fields=("category", "preference", "context", "confidence", "valid_from", "valid_until", "status",
            "corrected_by"),
    search_query=cypher.PREFERENCES_SEARCH, section="Preferences:", default_limit=5,
)
ENTITIES = Kind(
    name="entities", label="Entity", category="long_term", title="People and things", item_title="Person or thing",
    item_type="entity", order_by="created_at",
    fields=("name", "type", "aliases", "description", "created_at", "corrected_by"),
    search_query=cypher.ENTITIES_SEARCH, section="Entities:", default_limit=5,
)
TRACES = Kind(
    name="traces", label="ReasoningTrace", category="reasoning", title="Reasoning traces",
    item_title="Reasoning trace", item_type="trace", order_by="started_at",
    fields=("session_id", "agent_id", "task", "outcome", "success", "started_at", "completed_at", "held_reasons"),
    search_query=cypher.TRACES_SEARCH, section="Similar past tasks:", default_limit=3,
    erase_labels=("ToolCall", "ReasoningStep", "ReasoningTrace"),
)

# In erase order: sources first, so nothing is derived again from a message that is about to go.
KINDS = (MESSAGES, FACTS, PREFERENCES, ENTITIES, TRACES)
BY_NAME = {kind.name: kind for kind in KINDS}
# Nodes that hold no memory of their own but group it; erased after everything they group.
CONTAINER_LABELS = ("Conversation", "User")
ERASE_ORDER = tuple(label for kind in KINDS for label in kind.erase_labels) + CONTAINER_LABELS


def kind_get(name: str) -> Kind:
    """Return the kind of that name (a URL converter or serializer already checked it is one)."""
    return BY_NAME[name]


def category_labels(category: str) -> tuple[str, ...]:
    """Return the labels that hold a consent category's memory, in erase order."""

    return tuple(label for kind in KINDS if kind.category == category for label in kind.erase_labels)
