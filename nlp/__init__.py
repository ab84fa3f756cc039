"""Text to concepts: graphmem's spaCy-based concept extraction.

Works without any model download (``spacy.blank("en")`` plus rule components); a trained spaCy pipeline can be
configured to add noun chunks and entities. This package knows nothing about storage or MCP.
"""

from nlp.pipeline import ConceptExtractor, normalize_key
from nlp.types import ConceptKind, ConceptMention, ParsedObservation

__all__ = ["ConceptExtractor", "ConceptKind", "ConceptMention", "ParsedObservation", "normalize_key"]
