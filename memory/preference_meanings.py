"""Which of a person's preference nodes say one liking, and which of them stands for it.

memory.ingest writes one node per topic key and polarity, whatever the order messages are extracted in. Here a
person's nodes are grouped by meaning (memory.extraction.rules.preferences_same_meaning: the same content words, one
topic inside the other with only words of taking part added, or statements of one polarity whose vectors are this
close), within one category; a group holds both polarities of a liking, so the one said last is current. Of the
nodes of one polarity the one stated first stands for them all: the others are its duplicates, and their statements
are its provenance too. Everything here is a function of the nodes and their statements, never of the order
extraction ran in; a node whose merge was undone (`kept_apart`) stands alone from then on.
"""

from dataclasses import dataclass, field

import numpy as np

from memory.extraction.rules import preference_stems, preferences_same_meaning


@dataclass
class Meaning:
    """The nodes of one polarity of one liking: the node that stands for them, its duplicates, all their statements."""

    node: dict
    duplicates: list[dict] = field(default_factory=list)
    statements: list[dict] = field(default_factory=list)


def node_order(node: dict) -> tuple:
    """Return what orders nodes by when they were first said: their earliest statement, else their first key or
    valid time (a node written before statements were kept), then their uid."""
    keys = sorted(s["key"] for s in node["statements"])
    return (keys[0] if keys else node.get("since") or "", node["uid"])


def meanings(nodes: list[dict]) -> list[list[Meaning]]:
    """Return the nodes grouped by meaning, each group as one Meaning per polarity (the first said first)."""
    groups = []
    for members in _connected(nodes):
        sides: dict[str, list[dict]] = {}
        for node in sorted(members, key=node_order):
            sides.setdefault(node["polarity"], []).append(node)
        groups.append([Meaning(node=side[0], duplicates=side[1:], statements=[s for n in side for s in n["statements"]])
                       for side in sorted(sides.values(), key=lambda side: node_order(side[0]))])
    return sorted(groups, key=lambda group: node_order(group[0].node))


def _connected(nodes: list[dict]) -> list[list[dict]]:
    """Return the connected groups of nodes that say one liking (union-find over every pair)."""
    parent = list(range(len(nodes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    stems = [preference_stems(node["topic"]) for node in nodes]
    cosines = _cosines(nodes)
    for i in range(len(nodes)):
        for j in range(i + 1, len(nodes)):
            if root(i) != root(j) and _one_liking(nodes[i], nodes[j], stems[i], stems[j], cosines[i][j]):
                parent[root(j)] = root(i)
    groups: dict[int, list[dict]] = {}
    for i, node in enumerate(nodes):
        groups.setdefault(root(i), []).append(node)
    return list(groups.values())


def _cosines(nodes: list[dict]) -> list[list[float | None]]:
    """Return the cosine of every two nodes' vectors, None where either has none."""
    size = len(nodes[0]["embedding"]) if nodes and nodes[0].get("embedding") else 0
    matrix = np.array([node["embedding"] if node.get("embedding") and len(node["embedding"]) == size else [0.0] * size
                       for node in nodes], dtype=np.float32).reshape(len(nodes), size)
    norms = np.linalg.norm(matrix, axis=1)
    cosines = (matrix @ matrix.T) / np.maximum(np.outer(norms, norms), 1e-12)
    return [[float(cosines[i, j]) if norms[i] and norms[j] else None for j in range(len(nodes))]
            for i in range(len(nodes))]


def _one_liking(node: dict, other: dict, stems: frozenset, other_stems: frozenset, cosine: float | None) -> bool:
    """Return whether two nodes say one liking: the same content words (either polarity: one supersedes the other),
    or the same meaning within one category (by their vectors only when of one polarity). A node whose merge was
    undone stands alone."""
    if node.get("kept_apart") or other.get("kept_apart"):
        return False
    if stems == other_stems:
        return True
    if node["category"] != other["category"]:
        return False
    alike = cosine if node["polarity"] == other["polarity"] else None
    return preferences_same_meaning(stems, other_stems, cosine=alike)
