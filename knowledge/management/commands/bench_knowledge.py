"""Benchmark knowledge retrieval on a generated graph: latency per mode, and facts reached by enrichment; or how
far a faster query encoder moves each query's top 10 from the float encoder's."""

import json
import statistics
import time

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from neomodel import db

from knowledge import cypher
from knowledge.models import RetrievalProfile
from knowledge.selectors import knowledge_item_format, knowledge_search
from memory.embeddings import MiniLMEmbedder, embedder_class, get_embedder
from portal import graphdb
from portal.machine import machine

SYLLABLES = (
    "al ber cor dan el fen gar hol is jun kel lor mar nor ol pen quin ros sol tor ul ven wes xan yor zel".split()
)
SUFFIXES = ["Holdings", "Systems", "Industries", "Labs", "Group", "Partners"]
SUBJECTS = [
    "Revenue", "Operating margin", "Demand", "Inventory", "Headcount", "Capital spending", "Freight cost",
    "Customer churn", "Order backlog", "Research spending", "Warranty claims", "Energy cost", "Cash flow",
    "Gross margin", "Subscription revenue", "Debt", "Average selling price", "Unit volume", "Service revenue",
    "Marketing spend", "Raw material cost", "Utilisation", "Return rate", "Licence income", "Interest expense",
    "Dividend payout", "Store traffic", "Online sales", "Export sales", "Royalty income",
]
MOVES = ["rose", "fell", "held steady", "recovered", "softened", "accelerated", "doubled", "slipped", "improved",
         "worsened", "stabilised", "surged"]
CONTEXTS = [
    "in the fourth quarter", "in the European segment", "after a supplier change", "because of new regulation",
    "as interest rates rose", "during the product transition", "in North America", "after the acquisition",
    "as competitors cut prices", "because of currency movements", "in the consumer business", "during the strike",
    "after the plant expansion", "as customers delayed orders", "in the public sector business", "in Asia",
    "because of the cyber incident", "after the price increase", "in the wholesale channel", "during the recall",
    "as shipping costs eased", "because of weather", "after the restructuring", "in the services unit",
    "as the new contract started",
]
RISK_THEMES = [
    "supplier concentration", "currency exposure", "product liability", "cyber intrusion", "regulatory change",
    "key customer loss", "labour shortage", "patent litigation", "commodity prices", "plant outage",
    "interest rate rises", "tax disputes", "data privacy fines", "climate regulation", "distributor failure",
]
PRODUCT_LINES = ["X", "Pro", "Lite", "Max", "One", "Edge", "Prime", "Flex", "Core", "Nova"]
MODES = {
    "vector": {"mode": "vector"},
    "fulltext": {"mode": "fulltext"},
    "hybrid_max": {"mode": "hybrid", "ranker": "max"},
    "hybrid_linear": {"mode": "hybrid", "ranker": "linear", "alpha": 0.5},
    "hybrid_rrf": {"mode": "hybrid", "ranker": "rrf"},
}
OVERLAP_TOP_K = 10
CHUNKS_PER_DOCUMENT = 50
FACTS_PER_KIND = 5


class Command(BaseCommand):
    help = (
        "Benchmark vector, fulltext and hybrid knowledge retrieval, plain and enriched, "
        "on >= 100,000 generated chunks."
    )

    def add_arguments(self, parser):
        parser.add_argument("--chunks", type=int, default=100_000)
        parser.add_argument("--queries", type=int, default=20, help="Size of the fixed query set.")
        parser.add_argument("--rounds", type=int, default=3, help="Timed passes over the query set per mode.")
        parser.add_argument("--top-k", type=int, default=5)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--allow-populated", action="store_true",
                            help="Run even though the database holds other data "
                            "(the benchmark only touches its own label).")
        parser.add_argument("--keep", action="store_true", help="Leave the generated graph and its indexes in place.")
        parser.add_argument("--overlap", action="store_true",
                            help=f"Instead of timing, compare each query's top {OVERLAP_TOP_K} by the candidate encoder "
                                 "with the float MiniLM's: over chunks the float encoder embedded (queries mixed with "
                                 "stored vectors) and over chunks the candidate embedded (everything re-embedded).")
        parser.add_argument("--candidate", default=None,
                            help="the EMBEDDER value to compare with the float MiniLM (default: EMBEDDER)")

    def handle(self, *args, **options):
        foreign = graphdb.scalar(cypher.BENCH_FOREIGN_NODES)
        if foreign and not options["allow_populated"]:
            raise CommandError(
                f"Refusing to run: the Neo4j at {db.url} holds {foreign} nodes that are not the benchmark's. "
                "Point NEO4J_URL at a database meant for benchmarks, or pass --allow-populated."
            )
        if options["overlap"]:
            self.stdout.write(json.dumps(self._overlap(**options)))
            return
        rng = np.random.default_rng(options["seed"])
        embedder = get_embedder()
        self._clean()
        try:
            build = self._build(rng=rng, embedder=embedder, chunks=options["chunks"])
            result = self._measure(rng=rng, embedder=embedder, build=build, **options)
        finally:
            if not options["keep"]:
                self._clean()
        self.stdout.write(json.dumps(result))

    def _build(self, *, rng, embedder, chunks: int) -> dict:
        timings = {}
        started = time.perf_counter()
        n_companies = max(1, chunks // (2 * CHUNKS_PER_DOCUMENT))
        roots = _unique(rng, n_companies, lambda: "".join(rng.choice(SYLLABLES, 3)).capitalize())
        companies = []
        for i, root in enumerate(roots):
            name = f"{root} {rng.choice(SUFFIXES)}"
            products = [f"{root[:4]}{rng.choice(PRODUCT_LINES)} {k + 1}" for k in range(FACTS_PER_KIND)]
            themes = rng.choice(RISK_THEMES, FACTS_PER_KIND, replace=False)
            risks = [f"{theme.capitalize()} at {root}" for theme in themes]
            documents = [{"uid": f"bench-doc-{i}-{y}", "title": f"{name} annual report {y}"} for y in (2024, 2025)]
            companies.append({"uid": f"bench-company-{i}", "name": name, "risks": risks, "products": products,
                              "documents": documents})
        sentences = _unique(rng, min(1500, max(50, chunks // 20)), lambda: (
            f"{rng.choice(SUBJECTS)} {rng.choice(MOVES)} {rng.choice(CONTEXTS)}."))
        vocabulary = _embed(embedder, sentences)
        company_vectors = _embed(embedder, [f"{c['name']} annual report" for c in companies])
        timings["embed_vocabulary_s"] = round(time.perf_counter() - started, 1)

        for statement in cypher.BENCH_SCHEMA:
            graphdb.run(statement)
        for batch in _batches(companies, 500):
            graphdb.run(cypher.BENCH_COMPANIES, {"companies": batch})
        written = 0
        while written < chunks:
            size = min(2000, chunks - written)
            graphdb.run(cypher.BENCH_CHUNKS, {"chunks": self._chunk_rows(
                rng=rng, start=written, size=size, companies=companies, sentences=sentences,
                vocabulary=vocabulary, company_vectors=company_vectors)})
            written += size
        timings["write_s"] = round(time.perf_counter() - started - timings["embed_vocabulary_s"], 1)
        indexing = time.perf_counter()
        for statement in cypher.BENCH_SEARCH_SCHEMA:
            graphdb.run(statement, {"dimensions": embedder.dimensions})
        graphdb.run(cypher.BENCH_AWAIT_INDEXES, {"seconds": 3600})
        timings["index_s"] = round(time.perf_counter() - indexing, 1)
        return {"companies": companies, "timings": timings, "chunks": written}

    def _chunk_rows(self, *, rng, start, size, companies, sentences, vocabulary, company_vectors) -> list[dict]:
        """Make chunks from a company and a vocabulary sentence: text by concatenation, vector by noisy sum."""

        index = np.arange(start, start + size)
        company = index // (2 * CHUNKS_PER_DOCUMENT)
        company = np.minimum(company, len(companies) - 1)
        topic = rng.integers(0, len(sentences), size)
        named = rng.random(size) < 0.6
        weight = np.where(named, 1.0, 0.6)[:, None]
        noise = rng.normal(0, 0.015, (size, vocabulary.shape[1]))
        vectors = weight * company_vectors[company] + vocabulary[topic] + noise
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        mention = rng.random(size)
        rows = []
        for k in range(size):
            c = companies[company[k]]
            text = sentences[topic[k]]
            if named[k]:
                text += f" {c['name']} reported this in its annual filing."
            if mention[k] < 0.08:
                text += f" Sales of {c['products'][k % FACTS_PER_KIND]} were affected."
            elif mention[k] < 0.16:
                text += f" Management flagged {c['risks'][k % FACTS_PER_KIND].lower()}."
            document = c["documents"][(index[k] // CHUNKS_PER_DOCUMENT) % 2]["uid"]
            rows.append({"uid": f"bench-chunk-{index[k]}", "document": document, "text": text,
                         "embedding": vectors[k].tolist()})
        return rows

    def _overlap(self, *, candidate, chunks, queries, seed, **_) -> dict:
        """Return the mean share of the float encoder's top 10 that the candidate's top 10 keeps, with the stored
        vectors from the float encoder (mixed) and from the candidate (re-embedded): by exact cosine over the stored
        vectors (the encoder's own effect) and through the vector index (what a search returns, its approximation
        included), with the index's recall@10 against exact."""
        name = candidate or settings.EMBEDDER
        if not issubclass(embedder_class(name), MiniLMEmbedder):
            raise CommandError(f"--overlap compares MiniLM encoders; {name!r} embeds into another space.")
        reference = MiniLMEmbedder()
        faster = reference if embedder_class(name) is MiniLMEmbedder else embedder_class(name)()
        profile = RetrievalProfile(name="bench-vector", vector_index=cypher.BENCH_VECTOR_INDEX,
                                   fulltext_index=cypher.BENCH_FULLTEXT_INDEX, top_k=OVERLAP_TOP_K, **MODES["vector"])
        # The float MiniLM against itself needs one graph and one set of query vectors: the candidate's are the same.
        encoders = {"float": reference} if faster is reference else {"float": reference, "candidate": faster}
        query_set, tops = self._tops(encoders=encoders, profile=profile, chunks=chunks, queries=queries, seed=seed)
        if faster is reference:
            tops |= {(way, stored, asked): tops[(way, "float", "float")] for way in ("exact", "index")
                     for stored in ("float", "candidate") for asked in ("float", "candidate")}

        def kept(before, after):
            return round(float(np.mean([len(b & a) / OVERLAP_TOP_K for b, a in zip(tops[before], tops[after])])), 4)

        return {"bench": "knowledge_overlap", "candidate": name, "chunks": chunks, "queries": len(query_set),
                "top_k": OVERLAP_TOP_K,
                "overlap": {way: {"mixed": kept((way, "float", "float"), (way, "float", "candidate")),
                                  "reembedded": kept((way, "float", "float"), (way, "candidate", "candidate"))}
                            for way in ("exact", "index")},
                "index_recall_at_10": {"float": kept(("exact", "float", "float"), ("index", "float", "float")),
                                       "candidate": kept(("exact", "candidate", "candidate"),
                                                         ("index", "candidate", "candidate"))}}

    def _tops(self, *, encoders, profile, chunks, queries, seed) -> tuple[list[str], dict]:
        """Return the questions and each one's top 10 by way (exact, index), stored encoder and asking encoder,
        over a graph built by each encoder in turn."""
        tops = {}
        try:
            for stored, embedder in encoders.items():
                self._clean()
                build = self._build(rng=np.random.default_rng(seed), embedder=embedder, chunks=chunks)
                query_set = [query for query, _ in _query_set(np.random.default_rng(seed), build["companies"], queries)]
                stored_chunks = graphdb.rows(cypher.BENCH_CHUNK_VECTORS)
                uids = [chunk["uid"] for chunk in stored_chunks]
                vectors = np.array([chunk["embedding"] for chunk in stored_chunks], dtype=np.float32)
                for asked, encoder in encoders.items():
                    asking = encoder.embed(query_set)
                    tops[("exact", stored, asked)] = [{uids[i] for i in np.argsort(-scores)[:OVERLAP_TOP_K]}
                                                      for scores in asking @ vectors.T]
                    tops[("index", stored, asked)] = [
                        {item.uid for item in knowledge_search(profile=profile, query=query,
                                                               query_vector=vector.tolist(), enrich=False)}
                        for query, vector in zip(query_set, asking)]
        finally:
            self._clean()
        return query_set, tops

    def _measure(self, *, rng, embedder, build, queries, rounds, top_k, **_) -> dict:
        companies = build["companies"]
        query_set = _query_set(rng, companies, queries)
        latency, facts = {}, {}
        for label, fields in MODES.items():
            for enriched in (False, True):
                profile = RetrievalProfile(
                    name=f"bench-{label}", vector_index=cypher.BENCH_VECTOR_INDEX,
                    fulltext_index=cypher.BENCH_FULLTEXT_INDEX, top_k=top_k,
                    retrieval_query=cypher.COMPANY_CONTEXT_RETRIEVAL if enriched else "", **fields,
                )
                key = f"{label}{'+cypher' if enriched else ''}"
                facts[key], latency[key] = _profile_measure(profile=profile, query_set=query_set, rounds=rounds)
        embed_samples = []
        for query, _gold in query_set:
            started = time.perf_counter()
            embedder.embed([query])
            embed_samples.append((time.perf_counter() - started) * 1000)
        gold_total = sum(len(gold) for _, gold in query_set)
        return {
            "bench": "knowledge",
            "chunks": build["chunks"],
            "companies": len(companies),
            "queries": len(query_set),
            "samples_per_mode": rounds * len(query_set),
            "top_k": top_k,
            "build": build["timings"],
            "latency": latency,
            "query_embedding_p50_ms": round(_percentile(embed_samples, 50), 1),
            "gold_facts": {
                "total": gold_total,
                "reached": facts,
                "enriched_minus_plain": {label: facts[f"{label}+cypher"] - facts[label] for label in MODES},
            },
            "machine": machine(),
        }

    def _clean(self):
        graphdb.run(cypher.BENCH_CLEAN)
        for statement in cypher.BENCH_DROP:
            graphdb.run(statement)


def _query_set(rng, companies: list[dict], queries: int) -> list[tuple[str, set[str]]]:
    """Return questions about as many companies (each once), with the facts enrichment should reach for each."""
    asked = [companies[i] for i in rng.choice(len(companies), min(queries, len(companies)), replace=False)]
    return [(f"What does {c['name']} report about {rng.choice(SUBJECTS).lower()} {rng.choice(CONTEXTS)}?",
             set(c["risks"]) | set(c["products"])) for c in asked]


def _unique(rng, count, make) -> list[str]:
    seen: dict[str, None] = {}
    while len(seen) < count:
        seen[make()] = None
    return list(seen)


def _embed(embedder, texts: list[str]) -> np.ndarray:
    return np.concatenate([embedder.embed(batch) for batch in _batches(texts, 64)])


def _batches(rows, size):
    return (rows[i:i + size] for i in range(0, len(rows), size))


def _profile_measure(*, profile: RetrievalProfile, query_set: list[tuple[str, set[str]]],
                     rounds: int) -> tuple[int, dict[str, float]]:
    """Return how many gold facts the profile's contexts reach (a warm-up pass) and its search latency."""
    reached = 0
    for query, gold in query_set:
        items = knowledge_search(profile=profile, query=query)
        context = " ".join(knowledge_item_format(item=i) for i in items)
        reached += sum(fact in context for fact in gold)
    samples = []
    for _ in range(rounds):
        for query, _gold in query_set:
            started = time.perf_counter()
            knowledge_search(profile=profile, query=query)
            samples.append((time.perf_counter() - started) * 1000)
    return reached, {"p50_ms": round(_percentile(samples, 50), 1), "p95_ms": round(_percentile(samples, 95), 1)}


def _percentile(samples, q) -> float:
    return float(np.percentile(samples, q)) if len(samples) > 1 else statistics.fmean(samples)
