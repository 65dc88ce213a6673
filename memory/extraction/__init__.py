"""Extractors that turn a message into POLE+O entities, relations, facts and preferences."""

from django.conf import settings

from memory.extraction.results import (ExtractedEntity, ExtractedFact, ExtractedMention, ExtractedPreference,
                                       ExtractedRelation, Extraction, Extractor, Turn)

__all__ = [
    "ExtractedEntity", "ExtractedFact", "ExtractedMention", "ExtractedPreference", "ExtractedRelation",
    "Extraction", "Extractor", "Turn", "get_extractor",
]


def get_extractor() -> Extractor:
    """Return the extractor chosen by settings.EXTRACTOR: OpenAI when a key is configured, else offline."""
    choice = settings.EXTRACTOR or ("openai" if settings.OPENAI_API_KEY else "offline")
    if choice == "openai":
        from memory.extraction.openai_extractor import OpenAIExtractor

        return OpenAIExtractor()
    from memory.extraction.offline import OfflineExtractor

    return OfflineExtractor()
