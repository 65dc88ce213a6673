"""A gunicorn worker is warmed before its first request (gunicorn.conf.py's post_worker_init)."""

import gc

from memory.embeddings import get_embedder
from wiring.server import worker_warm


def test_a_warmed_worker_has_its_encoder_and_keeps_what_it_loaded_out_of_full_collections():
    get_embedder.cache_clear()
    try:
        worker_warm()
        assert get_embedder.cache_info().currsize == 1
        # A full collection walks only what the requests leave, not the frameworks and the model: in a warm
        # worker 122.6 ms of CPU without the freeze, 7.8 ms with it (docs/benchmarks-log.md).
        assert gc.get_freeze_count() > 100_000
    finally:
        gc.unfreeze()
