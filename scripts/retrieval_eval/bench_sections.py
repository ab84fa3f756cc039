"""Sections of ``scripts/bench.py`` owned by retrieval: the conversational set and its latency figures.

Kept here so bench.py only calls them (``--conversational``); each returns markdown.
"""

from __future__ import annotations

from .conversational import CONVERSATION_RETRIEVERS, format_conversation_table, load_conversations, run_conversations
from .semantic import SEMANTIC_RETRIEVERS, format_semantic_table, load_semantic, run_semantic

__all__ = ["conversational_section", "semantic_section"]


def conversational_section() -> str:
    """The five dev conversations in one store: BM25, memory_search, memory_associate, same run."""
    dataset = load_conversations()
    results = run_conversations(dataset, dict(CONVERSATION_RETRIEVERS))
    return (f"Conversational set ({len(dataset.turns):,} turns, {len(dataset.questions)} questions, one store, "
            f"filtered by project; latency in-process):\n\n" + format_conversation_table(results))


def semantic_section() -> str:
    """The semantic set (a conversation's context → the user's past memories): BM25, search, associate."""
    dataset = load_semantic()
    results = run_semantic(dataset, dict(SEMANTIC_RETRIEVERS))
    return (f"Semantic set ({len(dataset.memories)} memories, {len(dataset.queries)} dialogue contexts, one store, "
            f"no filter; latency in-process):\n\n" + format_semantic_table(results))
