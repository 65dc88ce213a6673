"""Where this deployment keeps bytes on disk, and the byte-level residue scan over them.

A logical erasure leaves the bytes of what it deleted in files: Neo4j's store files, transaction logs and index
folders, the relational database's pages and journal, Redis's dump and append-only file, and whatever a log wrote.
The scan reads every file of every place this machine can read and looks for the erased person's needles: runs of
their words (the content residue scan's fingerprints, taken the same way before deletion, as bytes), their rare
words (a fulltext index keeps a text only as its words) and the first components of their vectors as Neo4j and
Lucene store them. It reports per place how many files and bytes it read and how many needles it found, and in
which files, never what it found. A place this machine cannot read is reported as not checked, with the reason.
"""

import base64
import os
import re
import struct
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from glob import glob
from pathlib import Path
from urllib.parse import urlsplit

from ahocorasick_rs import BytesAhoCorasick
from cryptography.fernet import Fernet
from django.conf import settings
from django.db import connection

from governance import cypher
from portal.graphdb import rows
from portal.keys import derived_key
from portal.redis_clients import app_redis, broker_redis

# A text's byte needles are its runs of RUN_WORDS words, as the content scan's fingerprints are (the whole text when
# shorter), of RUN_BYTES bytes or more; a word is a rare-word needle when it has TOKEN_BYTES bytes or more.
RUN_WORDS = 8
RUN_BYTES = 20
TOKEN_BYTES = 8
TOKENS_MAX = 1000
# A vector is known by its first VECTOR_COMPONENTS components, as 32-bit floats (Lucene, Neo4j's float arrays) and
# 64-bit ones (Neo4j's lists of floats), and its int8 copy by its first VECTOR_COMPONENTS * 4 bytes.
VECTOR_COMPONENTS = 4
CHUNK = 16 * 1024 * 1024
# ASCII letters lowercased, digits and "_" kept, every other ASCII byte a space; bytes of other scripts kept.
_WORD_BYTES = bytes(range(ord("0"), ord("9") + 1)) + bytes(range(ord("a"), ord("z") + 1)) + b"_"
_FOLD = bytes(b if b >= 0x80 or b in _WORD_BYTES else (b + 32 if ord("A") <= b <= ord("Z") else 0x20)
              for b in range(256))
_SPACES = re.compile(rb" {2,}")


def normalised(data: bytes) -> bytes:
    """Return bytes as the scan reads them: ASCII case folded, anything but a word's bytes one space."""
    return _SPACES.sub(b" ", data.translate(_FOLD))


@dataclass
class Needles:
    """What the byte scan looks for: runs of words (matched in normalised bytes everywhere), rare words (matched in
    normalised bytes of fulltext indexes only, which keep a text as its words: elsewhere a word as common as
    "password" is in any log) and vector prefixes (matched in raw bytes). Content: held in memory, or sealed on the
    tombstone until the disk step has been checked."""

    text: set[bytes] = field(default_factory=set)
    tokens: set[bytes] = field(default_factory=set)
    raw: set[bytes] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.text) + len(self.tokens) + len(self.raw)

    def __or__(self, other: "Needles") -> "Needles":
        return Needles(text=self.text | other.text, tokens=self.tokens | other.tokens, raw=self.raw | other.raw)

    def all(self) -> set[bytes]:
        return self.text | self.tokens | self.raw

    def to_bytes(self) -> bytes:
        """Serialise as three counts, then each item length-prefixed."""
        parts = [sorted(self.text), sorted(self.tokens), sorted(self.raw)]
        return struct.pack(">III", *map(len, parts)) + b"".join(
            struct.pack(">H", len(item)) + item for part in parts for item in part)

    @classmethod
    def from_bytes(cls, data: bytes) -> "Needles":
        counts, offset, parts = struct.unpack_from(">III", data), 12, []
        for count in counts:
            part = set()
            for _ in range(count):
                (size,) = struct.unpack_from(">H", data, offset)
                part.add(data[offset + 2:offset + 2 + size])
                offset += 2 + size
            parts.append(part)
        return cls(*parts)


def _fernet() -> Fernet:
    return Fernet(base64.urlsafe_b64encode(derived_key("erasure-needles")))


def needles_seal(needles: Needles) -> bytes:
    """Encrypt needles to keep them on a tombstone until the disk step has been checked (they are content)."""
    return _fernet().encrypt(needles.to_bytes())


def needles_open(sealed: bytes) -> Needles:
    return Needles.from_bytes(_fernet().decrypt(bytes(sealed)))


def text_needles(text: str) -> tuple[set[bytes], set[bytes]]:
    """Return a text's runs of words and its rare words, as normalised bytes."""
    words = normalised(text.encode()).split()
    runs = {b" ".join(words[i:i + RUN_WORDS]) for i in range(len(words) - RUN_WORDS + 1)} or {b" ".join(words)}
    return ({run for run in runs if len(run) >= RUN_BYTES},
            {word for word in words if len(word) >= TOKEN_BYTES and not word.isdigit()})


def vector_needles(vector) -> set[bytes]:
    """Return a vector's first components as Neo4j and Lucene store them (or an int8 copy's first bytes)."""
    head = list(vector[:VECTOR_COMPONENTS * 4])
    if not head or not any(head):
        return set()
    if all(isinstance(value, int) for value in head):
        return {struct.pack(f"<{len(head)}b", *head)}
    head = head[:VECTOR_COMPONENTS]
    return {struct.pack(f"<{len(head)}f", *head), struct.pack(f"<{len(head)}d", *head)}


# One node's needles: its runs of words, its rare words, its vectors' prefixes.
NodeNeedles = tuple[set[bytes], set[bytes], set[bytes]]


def subject_needles(*, user_id: str, labels: list[str]) -> list[NodeNeedles]:
    """Read the subject's texts and vectors under these labels, before they are deleted; return each node's needles,
    for `needles_unshared` to drop what others hold too."""
    nodes = []
    for label in labels:
        if label not in cypher.CONTENT_PROPERTIES:
            continue
        for row in rows(cypher.needle_sources(label), {"user_id": user_id,
                                                          "properties": cypher.CONTENT_PROPERTIES[label],
                                                          "vectors": cypher.EMBEDDING_PROPERTIES}):
            runs, tokens, vectors = set(), set(), set()
            for value in row["texts"]:
                for text in value if isinstance(value, list) else [value]:
                    if isinstance(text, str):
                        text_runs, text_tokens = text_needles(text)
                        runs |= text_runs
                        tokens |= text_tokens
            for vector in row["vectors"]:
                vectors |= vector_needles(vector)
            nodes.append((runs, tokens, vectors))
    return nodes


def needles_unshared(*, nodes: list[NodeNeedles], shared: set[bytes]) -> Needles:
    """Return the needles no one else's memory holds, the rare words capped at TOKENS_MAX (longest first); a node's
    vectors count only when one of its runs is its own (the same words give everyone the same vector)."""
    runs, tokens, raw = set(), set(), set()
    for node_runs, node_tokens, vectors in nodes:
        own = node_runs - shared
        runs |= own
        tokens |= node_tokens - shared
        if own:
            raw |= vectors
    return Needles(text=runs, tokens=set(sorted(tokens, key=lambda t: (-len(t), t))[:TOKENS_MAX]), raw=raw)


class Matcher:
    """Find needles in bytes: runs (and, for a fulltext index, rare words) in the normalised bytes, vector prefixes in
    the raw ones."""

    def __init__(self, needles: Needles, *, words: bool = False):
        self.text = sorted(needles.text | (needles.tokens if words else set()))
        self.raw = sorted(needles.raw)
        self._text = BytesAhoCorasick(self.text) if self.text else None
        self._raw = BytesAhoCorasick(self.raw) if self.raw else None
        self.overlap = max(map(len, self.text + self.raw), default=0)

    def found(self, data: bytes) -> set[bytes]:
        hits = set()
        if self._text:
            hits |= {self.text[i] for i, _, _ in self._text.find_matches_as_indexes(normalised(data))}
        if self._raw:
            hits |= {self.raw[i] for i, _, _ in self._raw.find_matches_as_indexes(data)}
        return hits

    def found_in_file(self, path: Path) -> set[bytes]:
        """Return the needles in a file, read in overlapping chunks; a zip's members are read uncompressed too."""
        hits = self._stream(path.open("rb"))
        if zipfile.is_zipfile(path):
            try:
                with zipfile.ZipFile(path) as archive:
                    for member in archive.namelist():
                        hits |= self._stream(archive.open(member))
            except (zipfile.BadZipFile, OSError):
                pass
        return hits

    def _stream(self, handle) -> set[bytes]:
        hits, tail = set(), b""
        with handle:
            while chunk := handle.read(CHUNK):
                data = tail + chunk
                hits |= self.found(data)
                tail = data[-self.overlap:] if self.overlap else b""
        return hits


@dataclass
class Place:
    """Somewhere bytes live: its name, what a person reads for it, its files (None: not checked, and why)."""

    name: str
    title: str
    files: list[Path] | None
    reason: str = ""
    words: bool = False  # a fulltext index: what it keeps of a text is its words


def _files(*roots: Path, exclude: Iterable[Path] = ()) -> list[Path]:
    excluded = [Path(e) for e in exclude]
    found = []
    for root in roots:
        if root.is_file():
            found.append(root)
            continue
        for directory, _, names in os.walk(root):
            if any(Path(directory).is_relative_to(e) for e in excluded):
                continue
            found += [Path(directory) / name for name in names]
    return sorted(path for path in found if path.is_file() and not path.is_symlink())


def _neo4j_places() -> list[Place]:
    names = [("neo4j_store", "Neo4j store files"), ("neo4j_transaction_logs", "Neo4j transaction logs"),
             ("neo4j_fulltext_indexes", "Neo4j fulltext indexes"), ("neo4j_vector_indexes", "Neo4j vector indexes"),
             ("neo4j_other_indexes", "Neo4j range and lookup indexes"), ("neo4j_logs", "Neo4j's own logs")]
    config = {row["name"]: row["value"] for row in rows(cypher.DIRECTORIES)}
    database = config.get("initial.dbms.default_database", "neo4j")
    store = Path(config.get("server.directories.data", "/nonexistent")) / "databases" / database
    if not (store / "neostore").is_file():
        return [Place(name, title, None, "Neo4j's files are not on this machine") for name, title in names]
    indexes = store / "schema" / "index"
    kinds = {"fulltext": [], "vector": [], "other": []}
    for folder in sorted(indexes.iterdir()) if indexes.is_dir() else []:
        kind = folder.name.split("-", 1)[0]
        kinds[kind if kind in kinds else "other"].append(folder)
    transactions = Path(config["server.directories.transaction.logs.root"]) / database
    return [Place("neo4j_store", names[0][1], _files(store, exclude=[indexes])),
            Place("neo4j_transaction_logs", names[1][1], _files(transactions)),
            Place("neo4j_fulltext_indexes", names[2][1], _files(*kinds["fulltext"]), words=True),
            Place("neo4j_vector_indexes", names[3][1], _files(*kinds["vector"])),
            Place("neo4j_other_indexes", names[4][1], _files(*kinds["other"])),
            Place("neo4j_logs", names[5][1], _files(Path(config["server.directories.logs"])))]


def _database_place() -> Place:
    title = "The database's files"
    if connection.vendor == "sqlite":
        name = Path(connection.settings_dict["NAME"])
        if not name.is_file():
            return Place("database", title, [], "the database is held in memory")
        return Place("database", title, [path for path in (name, Path(f"{name}-wal"), Path(f"{name}-journal"))
                                         if path.is_file()])
    return Place("database", title, None, f"the {connection.vendor} server keeps its files itself; "
                                          "the disk step rewrites the tables that held content")


def redis_servers() -> list:
    """Return one client per Redis server the portal uses (caches and locks, the broker), each once."""
    servers = {}
    for url, client in ((settings.REDIS_URL, app_redis), (settings.CELERY_BROKER_URL, broker_redis)):
        if urlsplit(url).scheme.startswith("redis"):
            servers.setdefault(urlsplit(url).netloc.rsplit("@", 1)[-1], client())
    return list(servers.values())


def _redis_places() -> list[Place]:
    dumps, aofs, reasons = [], [], []
    for client in redis_servers():
        try:
            config = client.config_get("dir") | client.config_get("dbfilename") | client.config_get("appenddirname")
        except Exception:  # CONFIG is often renamed or refused on a managed Redis
            reasons.append("the Redis server does not say where its files are")
            continue
        directory = Path(config["dir"])
        if not directory.is_dir():
            reasons.append("Redis's files are not on this machine")
            continue
        dumps += _files(directory / config["dbfilename"]) if (directory / config["dbfilename"]).exists() else []
        aof = directory / config.get("appenddirname", "appendonlydir")
        aofs += _files(aof) if aof.is_dir() else []
    reason = "; ".join(reasons)
    return [Place("redis_dump", "Redis's dump files", None if reasons and not dumps else dumps, reason),
            Place("redis_aof", "Redis's append-only files", None if reasons and not aofs else aofs, reason)]


def _logs_place() -> Place:
    files = sorted({Path(path) for pattern in settings.LOG_FILES for path in glob(str(pattern))})
    return Place("logs", "The portal's and the worker's logs", [path for path in files if path.is_file()])


def places() -> list[Place]:
    """Return every place this deployment keeps bytes in, with the files of those this machine can read."""
    media = Path(settings.MEDIA_ROOT)
    return [*_neo4j_places(), _database_place(), *_redis_places(),
            Place("media", "Media and export files", _files(media) if media.is_dir() else []), _logs_place()]


def scan(*, needles: Needles) -> dict[str, dict]:
    """Look for the needles in every file of every place; return per place what was read and, per file (named
    relative to nothing, never with content), the needles found."""
    matchers = {False: Matcher(needles), True: Matcher(needles, words=True)}
    report = {}
    for place in places():
        matcher = matchers[place.words]
        if place.files is None:
            report[place.name] = {"title": place.title, "checked": False, "reason": place.reason}
            continue
        found, size = {}, 0
        for path in place.files:
            try:
                hits = matcher.found_in_file(path)
                size += path.stat().st_size
            except FileNotFoundError:  # rotated or pruned while the scan ran
                continue
            if hits:
                found[path.name] = hits
        report[place.name] = {"title": place.title, "checked": True, "files": len(place.files), "bytes": size,
                              "found": found}
    return report


def scan_summary(report: dict[str, dict], needles: Needles) -> dict[str, dict]:
    """Return a scan's result for one erasure's needles: per place the files and bytes read, how many of its
    needles were found and in which files (at most 20 named); no needle, no content."""
    mine = needles.all()
    summary = {}
    for name, place in report.items():
        if not place["checked"]:
            summary[name] = {k: place[k] for k in ("title", "checked", "reason")}
            continue
        where = {file: hits & mine for file, hits in place["found"].items() if hits & mine}
        summary[name] = {"title": place["title"], "checked": True, "files": place["files"], "bytes": place["bytes"],
                         "hits": len(set().union(*where.values())), "where": sorted(where)[:20]}
    return summary


def hits_total(summary: dict[str, dict]) -> int:
    return sum(place.get("hits", 0) for place in summary.values())
