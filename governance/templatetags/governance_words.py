"""The stores an erasure reports on, named for the person who reads its tombstone."""

from django import template

from memory.wording import words

register = template.Library()

STORE_LABELS = {
    "neo4j_nodes": "items of memory", "redis_keys": "things kept for a moment", "broker_messages": "work waiting",
    "export_files": "downloads", "database_rows": "records", "neo4j": "the memory itself",
    "redis": "what is kept for a moment", "broker": "work waiting", "database": "the records", "files": "downloads",
    "content": "your words, anywhere in the graph", "consent_records": "your consent decisions, kept as evidence",
}


@register.filter
def store(key: str) -> str:
    return STORE_LABELS.get(key, words(key))
