"""Retrieval evaluation harness for graphmem: data loading, the retriever protocol, BM25 baseline, metrics.

See ``scripts/eval_retrieval.py`` for the command-line entry point and how to register a retriever.
"""

from .bm25 import STOPWORDS, BM25Baseline, query_tokens
from .data import Dataset, Passage, Question, load_dataset
from .metrics import EvalResult, QueryResult, evaluate, format_deltas, format_table
from .protocol import Retriever, SetRetriever, dedupe

__all__ = [
    "STOPWORDS",
    "BM25Baseline",
    "Dataset",
    "EvalResult",
    "Passage",
    "QueryResult",
    "Question",
    "Retriever",
    "SetRetriever",
    "dedupe",
    "evaluate",
    "format_deltas",
    "format_table",
    "load_dataset",
    "query_tokens",
]
