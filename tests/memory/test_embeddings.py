import json

import numpy as np

from memory.embeddings import MiniLMEmbedder, get_embedder
from tests.conftest import ROOT

REFERENCE = json.loads((ROOT / "data" / "minilm" / "minilm_reference.json").read_text())


def test_local_embedder_matches_sentence_transformers():
    embedder = get_embedder()
    assert isinstance(embedder, MiniLMEmbedder) and embedder.dimensions == REFERENCE["dimensions"]
    texts = [item["text"] for item in REFERENCE["items"]]
    vectors = embedder.embed(texts)
    for item, vector in zip(REFERENCE["items"], vectors):
        expected = np.array(item["embedding"])
        cosine = float(vector @ expected / np.linalg.norm(expected))
        assert cosine >= 0.999, (item["text"], cosine)


def test_batched_and_single_embeddings_agree():
    embedder = get_embedder()
    texts = ["short", "a much longer sentence that needs padding in a batch with the short one"]
    batch = embedder.embed(texts)
    single = np.vstack([embedder.embed([t]) for t in texts])
    assert np.allclose(batch, single, atol=1e-5)
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
