"""The keyword leg of search: BM25 within the filter, plus the cues conversation turns give.

Split from ``engine.py``: the engine fuses this ranking with activation; everything about which
words the full-text match uses and how a hit's score reaches the turns around it lives here.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from graphmem.core.spreading_graph import IntArray
from graphmem.service.recall.turns import TurnIndex, named_speakers
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.store.projection import GraphProjection, VisibilityFilter
from nlp.query import query_terms

__all__ = ["KeywordLeg"]


class KeywordLeg:
    """BM25 over the filter's memories; in turn-like filters, neighbouring turns and the named speaker."""

    def __init__(self, uow: UnitOfWork, turns: TurnIndex) -> None:
        self.uow = uow
        self.extractor = uow.extractor
        self.settings = uow.settings
        self.turns = turns

    @property
    def projection(self) -> GraphProjection:
        return self.uow.projection

    def ranking(self, query: str, view: VisibilityFilter, now_ms: int, limit: int, seed_names: Collection[str],
                scope_size: int, conversational: bool) -> list[tuple[int, float]]:
        """BM25 hits (node, score), best first; in a conversation, shared with neighbours and speaker-weighted.

        Neighbours are the memories stored up to ``fusion.context_turns`` before and after a hit in the
        same project: one turn asks, the next answers, and the answer often lacks the question's words.
        The turn at distance d gets ``context_weight · context_decay^(d-1)`` of the hit's score.

        When the query names exactly one of the conversation's speakers, the name is a cue about who
        spoke, not a keyword: it is left out of the full-text match (as a word it matches every turn of
        that speaker through the ``Name:`` prefix, and the other speaker's turns that address them by
        name) and that speaker's turns are weighted by ``1 + speaker_boost`` instead.
        """
        fusion = self.settings.fusion
        skip = self._common_words(query, seed_names) if scope_size > fusion.bm25_guard_scope else set()
        named: set[str] = set()
        if conversational and fusion.speaker_boost > 0:
            with self.projection.lock:
                speakers_of_filter = self.turns.filter_speakers(self.projection,
                                                                self.projection.visible_nodes(view, now_ms))
            named = named_speakers(query, speakers_of_filter)
        name_words = set(query_terms(next(iter(named)))) if len(named) == 1 else set()
        ranked = self._bm25(query, view, now_ms, limit, skip, name_words)
        if not conversational or not ranked:
            return ranked
        nodes = np.array([node for node, _ in ranked], dtype=np.int64)
        scores = np.array([score for _, score in ranked], dtype=np.float64)
        # One vector per term, summed per node in the order the terms were listed (a hit's own score,
        # then its neighbours' shares by distance): the same sums a dict updated hit by hit gave.
        parts_nodes, parts_values = [nodes], [scores]
        if fusion.context_weight > 0 and fusion.context_turns > 0:
            with self.projection.lock:
                visible = self.projection.visible_nodes(view, now_ms)
                for distance, neighbours in enumerate(self._neighbours(nodes, visible, fusion.context_turns),
                                                      start=1):
                    share = fusion.context_weight * fusion.context_decay ** (distance - 1)
                    present = neighbours.ravel() >= 0
                    parts_nodes.append(neighbours.ravel()[present])
                    parts_values.append(np.repeat(share * scores, 2)[present])
        all_nodes = np.concatenate(parts_nodes)
        unique, inverse = np.unique(all_nodes, return_inverse=True)
        summed = np.bincount(inverse, weights=np.concatenate(parts_values), minlength=unique.size)
        if len(named) == 1:
            with self.projection.lock:
                speakers = self.turns.speakers(self.projection, unique)
            boosted = np.fromiter((speaker in named for speaker in speakers), dtype=bool, count=len(speakers))
            summed[boosted] *= 1.0 + fusion.speaker_boost
        order = np.lexsort((unique, -summed))[:limit]
        return list(zip(unique[order].tolist(), summed[order].tolist(), strict=True))

    def _neighbours(self, nodes: IntArray, visible: np.ndarray, width: int) -> list[np.ndarray]:
        """Per distance 1..width: the visible memories (``visible``, ascending) that far before and after each node
        in its project.

        Each entry is an array of shape (len(nodes), 2); -1 where there is none.
        """
        # node order is store order
        project = self.projection.col("project")
        at = np.searchsorted(visible, nodes)
        result = []
        for distance in range(1, width + 1):
            index = np.stack([at - distance, at + distance], axis=1)
            inside = (index >= 0) & (index < visible.size)
            other = np.where(inside, visible[np.clip(index, 0, max(visible.size - 1, 0))], -1)
            same = inside & (project[np.maximum(other, 0)] == project[nodes][:, None])
            result.append(np.where(same, other, -1))
        return result

    def _common_words(self, query: str, seed_names: Collection[str]) -> set[str]:
        """Query words whose concept is in more than ``bm25_max_df`` of all memories.

        Their postings are the longest and their IDF the smallest: OR-ing them into the full-text
        match made BM25 alone take 52 ms at 100k memories for almost no ranking signal. Only used when
        the filter admits more than ``bm25_guard_scope`` memories: inside one project a common word
        (a speaker's name) is a real cue, and the match is cheap.
        """
        limit = self.settings.fusion.bm25_max_df * max(self.projection.store_memory_count, 1)
        df = self.projection.col("df")
        common_keys = {name for name in seed_names if df[self.projection.concept_nodes[name]] > limit}
        if not common_keys:
            return set()
        return {word for word in query_terms(query) if self.extractor.word_key(word) in common_keys}

    def _bm25(self, query: str, view: VisibilityFilter, now_ms: int, limit: int,
              skip_terms: set[str], name_words: set[str]) -> list[tuple[int, float]]:
        """BM25 within the filter without ``skip_terms`` (common words, kept when too little is found
        without them) and ``name_words`` (the named speaker's name, kept only when nothing else matches).

        The projection's keyword index ranks (store/keyword_index.py), the same on every database; the
        collection statistics are the store's, whatever the filter, as FTS5's ``bm25()`` kept them.
        """
        words = query_terms(query)
        with self.projection.lock:
            mask = self.projection.visible_mask(view, now_ms)
            admitted = self.projection.visible_nodes(view, now_ms)
            index = self.projection.keywords

            def rank(skip: set[str]) -> list[tuple[int, float]]:
                kept = [word for word in words if word not in skip]
                return index.rank(kept or words, limit, mask, admitted)

            ranked = rank(skip_terms | name_words)
            if name_words and not ranked:
                # No other word of the query is in the filter: the name is the only keyword cue left.
                name_words = set()
                ranked = rank(skip_terms)
            if skip_terms - name_words and len(ranked) < limit:
                # The common words were left out for speed; when the rest finds too little inside the
                # filter (a speaker's name is common, the other words belong to another project), they count.
                ranked = rank(name_words)
        return ranked
