import json

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from memory.embeddings import (CachedEmbedder, MiniLMEmbedder, MiniLMInt8Embedder, embedding_dimensions,
                               get_embedder)
from tests.support.stack import ROOT

REFERENCE = json.loads((ROOT / "data" / "minilm" / "minilm_reference.json").read_text())


# The int8 embedder's least cosine is its reference sentences' worst; bench_quality, not cosine, decides whether its
# vectors serve the context (docs/benchmarks-log.md, issue 23).
@pytest.mark.parametrize("kind, least", [(MiniLMEmbedder, 0.999), (MiniLMInt8Embedder, 0.99)])
def test_local_embedders_match_sentence_transformers(kind, least):
    inner = get_embedder().inner
    embedder = inner if type(inner) is kind else kind()
    assert embedder.dimensions == REFERENCE["dimensions"]
    texts = [item["text"] for item in REFERENCE["items"]]
    vectors = embedder.embed(texts)
    for item, vector in zip(REFERENCE["items"], vectors):
        expected = np.array(item["embedding"])
        cosine = float(vector @ expected / np.linalg.norm(expected))
        assert cosine >= least, (item["text"], cosine)


def test_every_int8_embedder_makes_the_same_vectors():
    # Each web and worker process calibrates its own int8 embedder as it starts: a vector must not depend on which one.
    texts = [item["text"] for item in REFERENCE["items"]]
    inner = get_embedder().inner
    started = inner if type(inner) is MiniLMInt8Embedder else MiniLMInt8Embedder()
    assert np.array_equal(started.embed(texts), MiniLMInt8Embedder().embed(texts))


def test_an_unknown_embedder_is_refused_naming_the_choices():
    with override_settings(EMBEDDER="minilm-fp4"), pytest.raises(
            ImproperlyConfigured, match="EMBEDDER must be one of minilm, minilm-int8, openai; got 'minilm-fp4'"):
        embedding_dimensions()


def test_batched_and_single_embeddings_agree():
    embedder = get_embedder()
    texts = ["short", "a much longer sentence that needs padding in a batch with the short one"]
    batch = embedder.embed(texts)
    single = np.vstack([embedder.embed([t]) for t in texts])
    assert np.allclose(batch, single, atol=1e-5)
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)


def test_the_cache_answers_repeated_texts_with_the_same_vectors_and_keeps_only_the_newest():
    minilm = get_embedder().inner
    cached = CachedEmbedder(minilm, size=3)
    texts = ["Where does Dana live now?", "the battery fire", "my sister's kitten", "a fourth text"]
    first = cached.embed(texts[:2])
    assert np.allclose(first, minilm.embed(texts[:2]), atol=1e-6)
    mixed = cached.embed([texts[1], texts[2], texts[1]])  # a hit, a miss, the hit again
    assert np.array_equal(mixed[0], first[1]) and np.array_equal(mixed[2], first[1])
    assert np.allclose(mixed[1], minilm.embed([texts[2]])[0], atol=1e-6)
    mixed[0][:] = 0  # what a caller does to its rows never reaches the cache
    assert np.array_equal(cached.embed([texts[1]])[0], first[1])
    cached.embed([texts[3]])
    assert list(cached._vectors) == [texts[2], texts[1], texts[3]]  # the least recently used went first
    assert cached.embed([]).shape == (0, 384)
