"""Sections of ``scripts/bench.py`` owned by retrieval: the conversational set and its latency figures.

Kept here so bench.py only calls them (``--conversational``); each returns markdown.
"""

from __future__ import annotations

from .conversational import CONVERSATION_RETRIEVERS, format_conversation_table, load_conversations, run_conversations

__all__ = ["conversational_section"]


def conversational_section() -> str:
    """The five dev conversations in one store: BM25, memory_search, memory_associate, same run."""
    dataset = load_conversations()
    results = run_conversations(dataset, dict(CONVERSATION_RETRIEVERS))
    return (f"Conversational set ({len(dataset.turns):,} turns, {len(dataset.questions)} questions, one store, "
            f"filtered by project; latency in-process):\n\n" + format_conversation_table(results))
