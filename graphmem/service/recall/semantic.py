"""The semantic leg of recall: meaning where the wording differs, and nothing where it matches.

Three uses of the projection's semantic index (``store/semantic_index.py``):

* **Seeds by form and by meaning.** A query word that is no known concept seeds the concept spelled the same
  without spaces or hyphens ("webhook" → "web hook"), or the verb of a one-word phrasal form ("rollback" →
  "roll"); with ``seed_threshold`` below 1 (off by default, measured a loss), else the known words closest in
  meaning ("nervous" → "anxious"), weighted by their cosine.
* **The gate.** How much of the query the best keyword hits already cover, by specificity (IDF within the
  filter). A question whose words the top hit contains is left to the keywords; a conversation's context, of
  which the best hit shares a few words, is answered by meaning (:func:`graphmem.core.semantic.keyword_gate`).
* **The ranking.** Cosine of every memory the filter admits with the query's vector, fused with the
  keyword/graph ranking where the gate is open: by default cosine plus ``keyword_share`` times the ranking's
  normalised score (``fusion = "score"``), or by RRF. At gate 0 the ranking is exactly the one without the leg.
* **Centred meaning on turns.** In a conversation the gated leg is off (a turn's vector is mostly its speaker's
  manner); instead each candidate turn's score is weighted by its cosine with the query once the filter's mean
  vector is taken from both (:meth:`SemanticLeg.centered_affinity`), which leaves the topic.
* **Names.** A static vector hardly tells "Bart" from "Lisa", so where meaning decides, a memory gains
  ``name_weight`` times the share of the query's names it mentions (the store's known concepts that the parser
  marked as entities or that the query writes capitalized inside a sentence): a question about one person's
  day is about that person's memories first.

Why it is gated rather than always fused: on the dev sets plain RRF with the semantic ranking lifted the
conversation-context set by 0.10 R@5 and cost the conversations 0.09 R@10 and MuSiQue 0.08 R@5
(docs/retrieval.md, "Semantic").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.core.ranking import idf
from graphmem.core.semantic import capitalized_words, compact_form, keyword_gate, particle_stem
from graphmem.core.spreading_graph import FloatArray
from graphmem.settings import SemanticSettings
from graphmem.store.projection import GraphProjection

__all__ = ["SemanticLeg", "SemanticSeed", "mentioned_share", "query_weights", "synonym_cover"]

_COVERAGE_HITS = 3  # the best keyword hits whose concepts count as covering the query
_SEED_NEIGHBOURS = 3  # known words an unmatched query word may seed
_CENTERS_KEPT = 64  # filters whose mean vector is kept


@dataclass(frozen=True, slots=True)
class SemanticSeed:
    """A known concept standing in for a query concept that matched nothing by spelling."""

    concept: str
    query_concept: str
    match: str  # "form" (same letters without spaces or hyphens) | "semantic" (closest in meaning)
    similarity: float


class SemanticLeg:
    """Seeds, gate and ranking from the projection's vectors; inert when the projection has none."""

    def __init__(self, settings: SemanticSettings) -> None:
        self.settings = settings
        self._vectors: dict[str, FloatArray] = {}
        self._centers: dict[tuple[int, int, int, int], FloatArray] = {}  # a filter's mean memory vector

    def enabled(self, projection: GraphProjection) -> bool:
        return projection.semantic.enabled

    def query_vector(self, projection: GraphProjection, query: str) -> FloatArray:
        """The query's unit vector (the last few are kept: search and associate often ask the same)."""
        vector = self._vectors.get(query)
        if vector is None:
            vector = projection.semantic.embed([query])[0].astype(np.float64)
            if len(self._vectors) >= 256:
                self._vectors.pop(next(iter(self._vectors)))
            self._vectors[query] = vector
        return vector

    def seeds_for(self, projection: GraphProjection, unmatched: Sequence[str]) -> list[SemanticSeed]:
        """Stand-ins for query concepts no known concept spells: same form first, else nearest in meaning."""
        index = projection.semantic
        seeds: list[SemanticSeed] = []
        meaning: list[str] = []
        for key in unmatched:
            form = compact_form(key)
            node = index.compact.get(form)
            if node is None and particle_stem(form) is not None:
                node = index.compact.get(particle_stem(form) or "")  # "rollback" asked, "roll back" stored
            if node is not None and projection.names[node] != key:
                seeds.append(SemanticSeed(projection.names[node], key, "form", 1.0))
            elif index.enabled and key.isalpha() and self.settings.seed_threshold < 1.0:  # 1: seeds by meaning off
                meaning.append(key)
        if meaning:
            for key, vector in zip(meaning, index.embed(meaning), strict=True):
                for node, similarity in index.nearest_words(vector, self.settings.seed_threshold, _SEED_NEIGHBOURS):
                    seeds.append(SemanticSeed(projection.names[node], key, "semantic", round(similarity, 4)))
        return seeds

    def coverage(self, projection: GraphProjection, weights: dict[str, float], keyword_nodes: Sequence[int]) -> float:
        """The largest share of the query's weight (concept → IDF) that one of the best keyword hits mentions."""
        if sum(weights.values()) <= 0:
            return 1.0  # every query concept is a hub of the filter: nothing specific to look for by meaning
        best = np.asarray(keyword_nodes[:_COVERAGE_HITS], dtype=np.int64)
        return float(mentioned_share(projection, weights, best).max(initial=0.0))

    def names(self, projection: GraphProjection, query: str, query_concepts: Sequence[str]) -> dict[str, float]:
        """The query's names the store knows, each of weight 1: concepts the parser marked as entities, or
        words the query writes capitalized inside a sentence (:func:`capitalized_words`)."""
        if self.settings.name_weight <= 0:
            return {}
        capitalized = capitalized_words(query)
        nodes, kinds = projection.concept_nodes, projection.concept_kind
        return {concept: 1.0 for concept in query_concepts
                if concept in nodes and (kinds.get(nodes[concept]) == "entity" or concept in capitalized)}

    def centered_affinity(self, projection: GraphProjection, query: str, admitted: np.ndarray,
                          nodes: np.ndarray) -> FloatArray:
        """Per node, its cosine with the query once the filter's mean vector is taken from both.

        A static turn vector is mostly what every turn of the conversation shares (the speakers' manner, filler
        words): raw cosines between turns and a question are noise (docs/retrieval.md). Less the filter's
        mean, the same vectors rank a multi-hop question's gold turns far higher (LoCoMo, gold turns in the
        cosine's top 50: 0.50 raw, 0.62 centred).
        """
        # The filter's memory nodes, ascending (GraphProjection.visible_nodes), or a mask over nodes.
        visible = np.flatnonzero(admitted) if admitted.dtype == np.bool_ else admitted
        if visible.size == 0:
            return np.zeros(len(nodes))
        key = (int(visible[0]), int(visible[-1]), int(visible.size), projection.semantic.memories.count)
        center = self._centers.get(key)
        if center is None:
            center = projection.semantic.mean_vector(visible)
            if len(self._centers) >= _CENTERS_KEPT:
                self._centers.pop(next(iter(self._centers)))
            self._centers[key] = center
        return projection.semantic.centered_similarity(self.query_vector(projection, query),
                                                       np.asarray(nodes, dtype=np.int64), center)

    def gate(self, coverage: float) -> float:
        if self.settings.search_weight <= 0:
            return 0.0
        return keyword_gate(coverage, self.settings.gate_open, self.settings.gate_closed)

    def ranking(self, projection: GraphProjection, query: str, mask: np.ndarray,
                limit: int, admitted: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The filter's memories by cosine with the query, best first (node, cosine); ``admitted``: the nodes
        ``mask`` admits, when the caller holds them (GraphProjection.visible_nodes)."""
        nodes, similarity = projection.semantic.nearest_memories(self.query_vector(projection, query), mask,
                                                                 admitted)
        if nodes.size == 0:
            return []
        if nodes.size > limit:
            keep = np.argpartition(-similarity, limit - 1)[:limit]
            nodes, similarity = nodes[keep], similarity[keep]
        order = np.lexsort((nodes, -similarity))
        # A memory that only meaning brings in must be close: below this a static cosine is topic noise
        # ("Google ago" and "We write the worker in Go": 0.14), and an agent takes filler for a hit.
        floor = self.settings.min_similarity
        return [(int(nodes[i]), float(similarity[i])) for i in order if similarity[i] >= floor]


def mentioned_share(projection: GraphProjection, weights: dict[str, float], nodes: np.ndarray) -> np.ndarray:
    """Per memory node, the share of the query's weight (concept name → IDF) its concepts carry; one read of
    all the nodes' edges (a concept the store lacks counts in the total and is never covered)."""
    total = sum(weights.values())
    nodes_of = projection.concept_nodes  # one lookup a name (a packed index searches its strings)
    known = {node: weight for node, weight in ((nodes_of.get(name), weight) for name, weight in weights.items())
             if node is not None}
    if total <= 0 or not known or nodes.size == 0:
        return np.zeros(nodes.size)
    concepts = np.fromiter(known, dtype=np.int64)
    concept_weights = np.fromiter(known.values(), dtype=float)
    order = np.argsort(concepts)
    position, targets = projection.graph.linked(nodes, concepts)
    at = order[np.searchsorted(concepts[order], targets)]
    covered: np.ndarray = np.bincount(position, weights=concept_weights[at], minlength=nodes.size)
    return covered / total


def synonym_cover(projection: GraphProjection, needs: Sequence[str], concepts: dict[int, frozenset[str]],
                  threshold: float) -> dict[int, dict[str, tuple[str, float]]]:
    """Per memory node: the needs no candidate mentions by name that it mentions a word at least
    ``threshold`` close to, with that word and its cosine ("anxious" covered by "nervous")."""
    index = projection.semantic
    # A synonym stands in only where no candidate mentions the need itself: static vectors of words that
    # share a sub-word ("rollback", "rollout") are close, and a direct mention is always the better source.
    mentioned = frozenset().union(*concepts.values()) if concepts else frozenset()
    wanted = [need for need in needs if need.isalpha() and need not in mentioned]
    if not index.enabled or not wanted or threshold >= 1.0:
        return {}
    need_vectors = index.embed(wanted)
    cover: dict[int, dict[str, tuple[str, float]]] = {}
    for node, names in concepts.items():
        words = [name for name in names if name in projection.concept_nodes]
        word_nodes = np.array([projection.concept_nodes[name] for name in words], dtype=np.int64)
        rows, table = index.word_vectors(word_nodes)
        keep = rows >= 0
        if not keep.any():
            continue
        similarity = need_vectors @ table[rows[keep]].astype(np.float32).T
        kept = [word for word, has in zip(words, keep.tolist(), strict=True) if has]
        for at, need in enumerate(wanted):
            best = int(np.argmax(similarity[at]))
            if need not in names and similarity[at, best] >= threshold:
                cover.setdefault(node, {})[need] = (kept[best], round(float(similarity[at, best]), 4))
    return cover


def query_weights(query_concepts: Sequence[str], seed_weight: dict[str, float], scope_size: int) -> dict[str, float]:
    """Each query concept's specificity: its seed weight, or for a concept the filter lacks, the IDF of df 0."""
    unknown = idf(0, max(scope_size, 1))
    return {concept: seed_weight.get(concept, unknown) for concept in query_concepts
            if not math.isclose(seed_weight.get(concept, unknown), 0.0)}
