"""Text to concepts: graphmem's spaCy-based concept extraction.

Works without any model download (``spacy.blank("en")`` plus rule components); a trained spaCy pipeline can be
configured to add noun chunks and entities. This package knows nothing about storage or MCP.
"""

from nlp.spacy_cli import defer_spacy_cli

defer_spacy_cli()  # before spaCy's first import: its command line loads only if something uses it

from nlp.pipeline import ConceptExtractor, normalize_key  # noqa: E402
from nlp.types import ConceptKind, ConceptMention, ParsedObservation  # noqa: E402

__all__ = ["ConceptExtractor", "ConceptKind", "ConceptMention", "ParsedObservation", "normalize_key"]
