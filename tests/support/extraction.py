"""The offline extractor run on one text, and what a result holds, read the way the extraction tests compare it."""

from memory.extraction.offline import OfflineExtractor


def extract(text, **kwargs):
    return OfflineExtractor().extract(text=text, **kwargs)


def entity(result, name):
    return next(e for e in result.entities if name in e.surface_forms)


def triples(result):
    return {(r.source, r.type, r.target) for r in result.relations}


def facts(result):
    return {(f.subject, f.predicate, f.object) for f in result.facts}


def types(result):
    return {e.name: e.type for e in result.entities}
