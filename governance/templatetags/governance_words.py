"""The stores an erasure reports on, named for the person who reads its tombstone."""

from django import template

from memory.wording import words

register = template.Library()

STORE_LABELS = {
    "neo4j_nodes": "items in the memory graph", "redis_keys": "cached entries", "broker_messages": "queued tasks",
    "export_files": "export files", "database_rows": "rows in the database", "neo4j": "the memory graph",
    "redis": "the cache", "broker": "the task queue", "database": "the database", "files": "export files",
    "content": "your words, anywhere in the graph", "consent_records": "your consent decisions, kept as evidence",
}


@register.filter
def store(key: str) -> str:
    return STORE_LABELS.get(key, words(key))
