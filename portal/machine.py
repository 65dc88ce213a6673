"""What a benchmark ran on, printed beside its figures: cores, memory, load, and how fast a core runs Python
at that moment. The last says what the load cannot: a shared machine can run at half its speed for hours
with nothing else on it (docs/benchmarks-log.md), and a latency is only comparable with one measured as fast."""

import os
import time

# Additions in the loop that times a core: 110-195 ms on a slow day of the project's 2-core machine; about 45-65
# on the days of its latency records, estimated from the older loop they were timed with (docs/benchmarks-log.md).
SPEED_LOOP = 2_000_000


def machine() -> dict:
    """Return the machine's cores, memory (GiB) and one-minute load, and `python_ms`, the CPU time of a fixed loop
    of Python additions (the least of three runs): the higher, the slower every figure beside it."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {"cpus": os.cpu_count(), "memory_gib": round(memory / 2**30), "load_1m": round(os.getloadavg()[0], 2),
            "python_ms": _python_ms()}


def _python_ms() -> float:
    spent = []
    for _ in range(3):
        started = time.process_time()
        total = 0
        for i in range(SPEED_LOOP):
            total += i
        spent.append(time.process_time() - started)
    return round(min(spent) * 1000, 1)
