"""Recall use cases: seed matching, spreading activation, ranking, search fusion and composition.

The mathematics lives in ``graphmem.core``; this module wires it to the projection and the store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.core.activation import hop_spread_sparse, personalized_pagerank
from graphmem.core.ranking import idf, length_normalized, nested_phrases, reciprocal_rank_fusion, weighted_score_fusion
from graphmem.core.spreading_graph import FloatArray, IntArray, RestrictedGraph, members
from graphmem.core.time import from_ms
from graphmem.service.recall.decay_weights import ranking_weights
from graphmem.service.recall.keywords import KeywordLeg
from graphmem.service.recall.results import MemoryHit, SeedNode
from graphmem.service.recall.semantic import SemanticLeg, mentioned_share, query_weights
from graphmem.service.recall.turns import TurnIndex
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.settings import ActivationSettings
from graphmem.store.projection import CONCEPT, GraphProjection, VisibilityFilter
from nlp.normalize import fold_accents

__all__ = ["Activation", "RecallEngine"]

_BRIDGE_KINDS = frozenset({"entity", "identifier", "phrase"})
CARRIERS_SHOWN = 5  # a hit's concepts: those that passed it the most activation
_QUERY_CACHE_SIZE = 256
# A fallback (head word, part) is a weaker cue; a word of the same form ("rollback" for "roll back") is the
# concept itself; a word close in meaning counts by its cosine on top of this factor.
_MATCH_WEIGHT = {"exact": 1.0, "ngram": 1.0, "fallback": 0.7, "form": 1.0, "semantic": 0.7}


@dataclass(frozen=True, slots=True)
class Activation:
    """One query's seeds, the activation vector and the memories it ranks (node, score)."""

    query_concepts: tuple[str, ...]
    seeds: tuple[SeedNode, ...]
    unmatched: tuple[str, ...]
    nodes: IntArray  # the activated nodes, ascending, and their activation (a sparse vector: no array of every node)
    values: FloatArray
    ranked: tuple[tuple[int, float], ...]
    seed_df: tuple[int, ...] = ()  # each seed's document frequency among the filter's memories
    scope_size: int = 0  # memories the filter admits
    conversational: bool = False  # the filter's memories look like conversation turns (recall/turns.py)
    # The ranking key of each ranked memory where it is not its score (the bridge orders by a fused key and
    # shows the activation); empty: the scores are the keys.
    keys: tuple[float, ...] = ()
    n_nodes: int = 0  # the graph's nodes when it spread: the length of :attr:`vector`

    @property
    def vector(self) -> FloatArray:
        """The activation of every node, dense (built on each call: read :meth:`at` for a few nodes)."""
        dense = np.zeros(max(self.n_nodes, int(self.nodes[-1]) + 1 if self.nodes.size else 0))
        dense[self.nodes] = self.values
        return dense

    def at(self, nodes: IntArray) -> FloatArray:
        """The activation of each of ``nodes`` (0 where none reached)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if self.nodes.size == 0:
            return np.zeros(nodes.size)
        position = np.minimum(np.searchsorted(self.nodes, nodes), self.nodes.size - 1)
        found: FloatArray = np.where(self.nodes[position] == nodes, self.values[position], 0.0)
        return found

    @property
    def activated_count(self) -> int:
        """How many nodes the query activated (a positive activation)."""
        return int(np.count_nonzero(self.values > 0))

    def key_of(self) -> dict[int, float]:
        """Each ranked memory's ranking key: ``ranked`` is in descending order of it."""
        if not self.keys:
            return dict(self.ranked)
        return {node: key for (node, _), key in zip(self.ranked, self.keys, strict=True)}


class RecallEngine:
    """Associative recall over a :class:`GraphProjection`."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow
        self.repository = uow.repository
        self.extractor = uow.extractor
        self.settings = uow.settings
        fusion = self.settings.fusion
        self.turns = TurnIndex(self.repository, turn_share=fusion.turn_share, max_concepts=fusion.turn_max_concepts)
        self.keywords = KeywordLeg(uow, self.turns)
        self.semantic = SemanticLeg(self.settings.semantic)
        self._scopes = _ScopeCache()
        self._queries: dict[str, tuple[list[tuple[str, tuple[str, ...]]], list[str]]] = {}

    @property
    def projection(self) -> GraphProjection:
        """The unit of work's projection (use cases make it fresh before they read)."""
        return self.uow.projection

    def _scope(self, view: VisibilityFilter, mask: np.ndarray) -> _Scope:
        """The filter's scope (cached per filter while the graph and the mask are unchanged); hold the lock."""
        return self._scopes.get(view, self.projection, mask, self.settings.activation)

    # -- seeds ----------------------------------------------------------------------------------
    def match_seeds(self, query: str) -> tuple[tuple[str, ...], list[SeedNode], tuple[str, ...]]:
        """Match the query's concepts to known concept names on word boundaries (never substrings)."""
        known = self.projection.concept_nodes
        folded = self.projection.folded_keys
        query_concepts: list[str] = []
        seeds: dict[str, SeedNode] = {}
        unmatched: list[str] = []
        keys, ngrams = self._parsed(query)
        for key, fallbacks in keys:
            query_concepts.append(key)
            hit = next((name for name in (key, *fallbacks) if name in known), None)
            # Accent-insensitive fallback: "Aschenbrodel" in a query still finds "aschenbrödel".
            hit = hit or folded.get(fold_accents(key))
            if hit is None:
                unmatched.append(key)
            elif hit not in seeds:
                seeds[hit] = self._seed(hit, key, "exact" if hit == key else "fallback")
        for ngram in ngrams:
            # Single words were matched above with their lemma fallbacks; n-grams only add the
            # multi-word concepts the query contains (a raw inflected unigram would double-count).
            if " " in ngram and ngram in known and ngram not in seeds:
                seeds[ngram] = self._seed(ngram, ngram, "ngram")
                if ngram not in query_concepts:
                    query_concepts.append(ngram)
                if ngram in unmatched:
                    unmatched.remove(ngram)
        for stand_in in self.semantic.seeds_for(self.projection, unmatched):
            if stand_in.concept not in seeds:
                seed = self._seed(stand_in.concept, stand_in.query_concept, stand_in.match)
                seeds[stand_in.concept] = dataclasses.replace(seed, weight=seed.weight * stand_in.similarity)
        nested_weight = self.settings.activation.nested_phrase_weight
        if nested_weight != 1.0:
            for name in nested_phrases(seeds):
                seeds[name] = dataclasses.replace(seeds[name], weight=seeds[name].weight * nested_weight)
        covered = {seed.query_concept for seed in seeds.values()}
        unmatched = [key for key in unmatched if key not in covered]
        return tuple(dict.fromkeys(query_concepts)), list(seeds.values()), tuple(dict.fromkeys(unmatched))

    def _parsed(self, query: str) -> tuple[list[tuple[str, tuple[str, ...]]], list[str]]:
        """The query's concept keys and n-grams: a pure function of the text, so the last few are kept
        (an agent repeats queries, and asks search and associate the same one)."""
        parsed = self._queries.get(query)
        if parsed is None:
            parsed = self.extractor.query_parse(query)
            if len(self._queries) >= _QUERY_CACHE_SIZE:
                self._queries.pop(next(iter(self._queries)))
            self._queries[query] = parsed
        return parsed

    def _seed(self, concept: str, query_concept: str, match: str) -> SeedNode:
        # The weight is set per filter by _scoped (specificity within the project).
        node = self.projection.concept_nodes[concept]
        return SeedNode(id=f"c{node}", name=concept, query_concept=query_concept, match=match,
                        weight=_MATCH_WEIGHT[match])

    # -- activation -----------------------------------------------------------------------------
    def activate(self, query: str, view: VisibilityFilter, now_ms: int, limit: int, *,
                 decay: bool = True) -> Activation:
        """Spread from the query's seeds and rank the visible memories (filters before the cut).

        ``decay`` applies the lifecycle ranking weight here; search applies it once, to the fused list.
        """
        with self.projection.lock:
            query_concepts, seeds, unmatched = self.match_seeds(query)
            mask = self.projection.visible_mask(view, now_ms)
            scope = self._scope(view, mask)
            seeds, seed_df = self._scoped(seeds, scope)
            active = [seed for seed in seeds if seed.weight > 0]
            seed_nodes = np.array([self.projection.concept_nodes[seed.name] for seed in active], dtype=np.int64)
            seed_values = np.array([seed.weight for seed in active])
            nodes, values = self._spread(seed_nodes, seed_values, scope)
            ranked = self._rank(nodes, values, mask, limit, now_ms if decay else None)
            conversational = self.settings.fusion.turn_share < 1 and self.turns.conversational(
                self.projection, self.projection.visible_nodes(view, now_ms))
        return Activation(query_concepts, tuple(seeds), unmatched, nodes, values, ranked, seed_df, scope.size,
                          conversational, n_nodes=self.projection.graph.n_nodes)

    def _scoped(self, seeds: list[SeedNode], scope: _Scope) -> tuple[list[SeedNode], tuple[int, ...]]:
        """Weigh each seed by its specificity *within the filter*; hubs and absent concepts weigh 0.

        A document frequency over the whole store says little about one project: a speaker's name is
        rare among five conversations and in half the turns of its own. Seeding such a hub spread
        activation over most of the project and pushed the specific cues out of the top ten.
        """
        if not seeds:
            return seeds, ()
        nodes = np.array([self.projection.concept_nodes[seed.name] for seed in seeds], dtype=np.int64)
        local_df = scope.document_frequency(nodes)
        hubs = scope.is_hub(local_df)
        scoped = []
        for seed, df, hub in zip(seeds, local_df.tolist(), hubs.tolist(), strict=True):
            weight = seed.weight  # the match's factor (_seed), times the cosine for a semantic stand-in
            if self.settings.activation.specificity:
                weight *= idf(df, scope.size)
            scoped.append(SeedNode(seed.id, seed.name, seed.query_concept, seed.match,  # a replace() is 7 µs a seed
                                   0.0 if hub else round(weight, 6)))
        return scoped, tuple(local_df.tolist())

    def _spread(self, seed_nodes: IntArray, seed_values: FloatArray, scope: _Scope) -> tuple[IntArray, FloatArray]:
        """Activation as a sparse vector (nodes, values); hop-limited spreading never goes dense."""
        params = self.settings.activation
        graph = self.projection.graph
        if seed_nodes.size == 0 or seed_values.sum() <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if params.method == "hops":
            return hop_spread_sparse(scope.restricted, seed_nodes, seed_values, hops=params.hops,
                                     decay=params.hop_decay, prune=params.prune, admit=scope.admit)
        dense = np.zeros(graph.n_nodes)
        np.add.at(dense, seed_nodes, seed_values)
        dense = personalized_pagerank(graph, dense, alpha=params.alpha, max_iter=params.max_iter,
                                      tol=params.tol, prune=params.prune)
        nodes = np.flatnonzero(dense)
        return nodes, dense[nodes]

    def _rank(self, nodes: IntArray, values: FloatArray, mask: np.ndarray, limit: int,
              now_ms: int | None = None, excluded: IntArray | None = None) -> tuple[tuple[int, float], ...]:
        # Work on the activated, visible memories only: normalizing all n nodes cost more than the spread.
        admitted = (values > 0) & mask[nodes]
        if excluded is not None and excluded.size:
            admitted &= ~members(nodes, excluded)
        candidates, activation = nodes[admitted], values[admitted]
        scores = length_normalized(activation, self.projection.col("length")[candidates],
                                   self.settings.activation.length_norm)
        if now_ms is not None and self.settings.decay.ranking_weight > 0:
            # Lifecycle: relevance · (1 − w + w·min(decay score, 1)), vectorized over the candidates.
            scores = scores * ranking_weights(self.projection, self.settings.decay, candidates, now_ms)
        if candidates.size > limit:
            keep = np.argpartition(-scores, limit - 1)[:limit]
            candidates, scores = candidates[keep], scores[keep]
        order = np.lexsort((candidates, -scores))
        return tuple(zip(candidates[order].tolist(), scores[order].tolist(), strict=True))

    # -- presentation ---------------------------------------------------------------------------
    def hits(self, activation: Activation, nodes: list[int]) -> list[MemoryHit]:
        """Load the memories behind ``nodes`` and explain which concepts carried their activation."""
        with self.projection.lock:  # one read of all the hits' rows serves both the carriers and `direct`
            seqs = self.projection.col("seq")[np.asarray(nodes, dtype=np.int64)].tolist()
            carriers, direct = self._explained(activation, nodes)
        rows = self.repository.hit_rows(seqs)
        score_of = dict(activation.ranked)
        key_of = activation.key_of()
        result = []
        for index, (node, seq) in enumerate(zip(nodes, seqs, strict=True)):
            row = rows[seq]
            result.append(MemoryHit(
                id=row.id, type=row.kind, content=row.content, project=row.project,
                activation_score=round(score_of.get(node, 0.0), 6), concepts=tuple(carriers[index]),
                direct=direct[index], created_at=from_ms(row.created_at).isoformat(), topic_key=row.topic_key,
                tags=row.tags, score=round(key_of.get(node, 0.0), 6)))
        return result

    def _explained(self, activation: Activation, nodes: list[int]) -> tuple[list[list[str]], list[bool]]:
        """Per node: its concepts by the activation they passed to it (as :func:`_carriers`), and whether
        it mentions a seed concept. One read of all the nodes' rows; hold the projection's lock."""
        projection = self.projection
        position, targets, weights = projection.graph.rows(np.asarray(nodes, dtype=np.int64))
        is_concept = projection.col("node_type")[targets] == CONCEPT
        position, targets, weights = position[is_concept], targets[is_concept], weights[is_concept]
        seeds = np.array([projection.concept_nodes[seed.name] for seed in activation.seeds], dtype=np.int64)
        direct = np.zeros(len(nodes), dtype=bool)
        direct[position[members(targets, seeds)]] = True
        activation_of = activation.at(targets)
        flowing = activation_of > 0
        position, targets = position[flowing], targets[flowing]
        flows = activation_of[flowing] * weights[flowing]
        # By node, then the strongest flow first; equal flows by the higher node (sorted(..., reverse=True)).
        order = np.lexsort((-targets, -flows, position))
        position, targets = position[order], targets[order]
        # A hit shows its first CARRIERS_SHOWN carriers: only their names are read (a hit has ~20 concepts).
        starts = np.searchsorted(position, position, side="left")
        shown = np.arange(position.size) - starts < CARRIERS_SHOWN
        carriers: list[list[str]] = [[] for _ in nodes]
        names = projection.names
        for at, concept in zip(position[shown].tolist(), targets[shown].tolist(), strict=True):
            carriers[at].append(names[concept])
        return carriers, direct.tolist()

    def carriers(self, node: int, vector: FloatArray) -> list[str]:
        """Concept names of a memory ordered by the activation they passed to it."""
        with self.projection.lock:
            return _carriers(self.projection.names, self.projection.concepts_of(node), vector)

    def concept_names(self, node: int) -> list[str]:
        with self.projection.lock:
            return [self.projection.names[c] for c, _ in self.projection.concepts_of(node)]

    # -- search ---------------------------------------------------------------------------------
    def fused_ranking(self, query: str, view: VisibilityFilter, now_ms: int,
                      depth: int) -> tuple[list[tuple[int, float, int | None, int | None]], Activation]:
        """BM25 and activation rankings fused; (node, score, bm25_rank, activation_rank), best first."""
        fusion = self.settings.fusion
        activation = self.activate(query, view, now_ms, max(depth, fusion.candidates), decay=False)
        bm25_nodes = self._keyword_ranking(query, view, now_ms, max(depth, fusion.candidates), activation)
        act_nodes = [node for node, _ in activation.ranked]
        keys_b = [node for node, _ in bm25_nodes]
        keys_a = act_nodes
        # In a conversation the activation leg follows the keywords (a turn's concepts are its words)
        # and the bridge reaches unrelated turns: both are measured losses there (docs/retrieval.md).
        activation_weight = fusion.turn_activation_weight if activation.conversational else fusion.activation_weight
        if fusion.method == "rrf":
            fused = reciprocal_rank_fusion([keys_b, keys_a], [fusion.bm25_weight, activation_weight], k=fusion.rrf_k)
            if fusion.bridge_weight > 0 and activation.ranked and not activation.conversational:
                # No activation signal, no bridge: the keyword ranking stands as it is.
                fused, _ = self._with_bridge(fused, activation, view, now_ms, depth)
        else:
            fused = weighted_score_fusion(
                [dict(bm25_nodes), dict(activation.ranked)],
                [fusion.bm25_weight, activation_weight])
        rank_b = {key: rank for rank, key in enumerate(keys_b, start=1)}
        rank_a = {key: rank for rank, key in enumerate(keys_a, start=1)}
        first = sorted(fused.items(), key=_best_first)
        final = self._decay_weighted(self._with_meaning(fused, query, activation, view, now_ms, first), now_ms)
        ordered = first if final is fused else sorted(final.items(), key=_best_first)  # unchanged: sorted once
        return [(key, score, rank_b.get(key), rank_a.get(key)) for key, score in ordered], activation

    def _decay_weighted(self, fused: dict[int, float], now_ms: int) -> dict[int, float]:
        """The lifecycle ranking weight on fused scores (a no-op at ``decay.ranking_weight = 0``)."""
        if self.settings.decay.ranking_weight <= 0 or not fused:
            return fused
        nodes = np.fromiter(fused, dtype=np.int64, count=len(fused))
        with self.projection.lock:
            factors = ranking_weights(self.projection, self.settings.decay, nodes, now_ms)
        return {key: score * float(factor)
                for (key, score), factor in zip(fused.items(), factors, strict=True)}

    def recall_ranking(self, query: str, activation: Activation, view: VisibilityFilter, now_ms: int,
                       depth: int) -> Activation:
        """``memory_associate``'s ranking: activation with the bridge, or, on conversation turns, fused with keywords.

        On turns spreading only re-finds the words (a turn's concepts are its words) and the bridge
        reaches unrelated turns, so recall there is the keyword leg (neighbouring turns, the named
        speaker) fused with activation by RRF, as search does.
        """
        if not activation.conversational:
            return self._meaning_ranked(query, self.with_bridge(activation, view, now_ms, depth), view, now_ms, depth)
        fusion = self.settings.fusion
        keywords = self._keyword_ranking(query, view, now_ms, max(depth, fusion.candidates), activation)
        fused = reciprocal_rank_fusion([[n for n, _ in keywords], [n for n, _ in activation.ranked]],
                                       [fusion.bm25_weight, fusion.turn_activation_weight], k=fusion.rrf_k)
        fused = self._with_meaning(fused, query, activation, view, now_ms)
        fused = self._decay_weighted(fused, now_ms)
        ordered = sorted(fused.items(), key=_best_first)[:depth]
        return dataclasses.replace(activation, ranked=tuple(ordered), keys=())

    # -- meaning --------------------------------------------------------------------------------
    def _with_meaning(self, fused: dict[int, float], query: str, activation: Activation, view: VisibilityFilter,
                      now_ms: int, ordered_items: list[tuple[int, float]] | None = None) -> dict[int, float]:
        """The ranking fused with the semantic ranking at the gate's weight; unchanged where the gate is 0.

        The gate reads how much of the query the current ranking's best hits cover (recall/semantic.py). On
        conversation turns the candidates are first weighted by their centred meaning (``_turn_affinity_weighted``).
        """
        if not self.semantic.enabled(self.projection):
            return fused
        weights = query_weights(activation.query_concepts, {s.name: s.weight for s in activation.seeds},
                                activation.scope_size)
        if activation.conversational and activation.ranked:
            # No activation signal (the query's concepts are hubs of the filter or absent from it): no topic
            # of the filter to compare, and the keyword ranking stands (tests/service/test_recall_fallback.py).
            weighted = self._turn_affinity_weighted(fused, query, view, now_ms)
            if weighted is not fused:
                fused, ordered_items = weighted, None
        if ordered_items is None:  # else the caller's, of the same `fused`
            ordered_items = sorted(fused.items(), key=_best_first)
        ordered = [key for key, _ in ordered_items]
        with self.projection.lock:
            gate = self.semantic.gate(self.semantic.coverage(self.projection, weights, ordered[:3]))
            if gate <= 0:
                return fused
            projection = self.projection
            meaning = self.semantic.ranking(projection, query, projection.visible_mask(view, now_ms),
                                            self.settings.fusion.candidates, projection.visible_nodes(view, now_ms))
        weight = self.settings.semantic.search_weight * gate
        if activation.conversational:
            # A turn is a line of talk: its vector is mostly the speaker's manner, and the gated leg cost
            # the conversation set 0.01 R@10 (docs/retrieval.md); the turns' own cues do better there.
            weight *= self.settings.semantic.turn_weight
        if weight <= 0:
            return fused
        if self.settings.semantic.fusion == "score":
            return self._score_fused(fused, meaning, query, activation.query_concepts, weight)
        return reciprocal_rank_fusion([ordered, [node for node, _ in meaning]], [1.0, weight],
                                      k=self.settings.fusion.rrf_k)

    def _turn_affinity_weighted(self, fused: dict[int, float], query: str, view: VisibilityFilter,
                                now_ms: int) -> dict[int, float]:
        """On conversation turns, each candidate's score times ``1 + turn_affinity_weight · max(c, 0)``, with c
        its cosine with the query less the filter's mean vector (``SemanticLeg.centered_affinity``).

        A factor re-orders the candidates the keywords and the turns' cues found and brings in none: the
        centred cosine as a list of its own (RRF) pushed the keywords' single-hop answers out of the top ten.
        """
        weight = self.settings.semantic.turn_affinity_weight
        if weight <= 0 or not fused:
            return fused
        nodes = np.fromiter(fused, dtype=np.int64, count=len(fused))
        with self.projection.lock:
            affinity = self.semantic.centered_affinity(self.projection, query,
                                                       self.projection.visible_nodes(view, now_ms), nodes)
        factors = 1.0 + weight * np.maximum(affinity, 0.0)
        return {key: score * float(factor) for (key, score), factor in zip(fused.items(), factors, strict=True)}

    def _score_fused(self, fused: dict[int, float], meaning: list[tuple[int, float]], query: str,
                     query_concepts: tuple[str, ...], weight: float) -> dict[int, float]:
        """Cosine, plus ``name_weight`` per share of the query's names mentioned, plus the first ranking's score
        scaled to [0, ``keyword_share``]: meaning and names decide, the keywords and the graph break near-ties."""
        top = max(fused.values(), default=0.0) or 1.0
        keys = list(dict.fromkeys([node for node, _ in meaning] + list(fused)))
        nodes = np.array(keys, dtype=np.int64)
        with self.projection.lock:
            cosine = self.projection.semantic.memory_similarity(
                self.semantic.query_vector(self.projection, query), nodes)
            names = self.semantic.names(self.projection, query, query_concepts)
            if names:
                cosine = cosine + self.settings.semantic.name_weight * mentioned_share(self.projection, names, nodes)
        share = self.settings.semantic.keyword_share
        return {key: weight * float(c) + share * fused.get(key, 0.0) / top
                for key, c in zip(keys, cosine, strict=True)}

    def _meaning_ranked(self, query: str, activation: Activation, view: VisibilityFilter, now_ms: int,
                        depth: int) -> Activation:
        """``memory_associate``'s ranking with the semantic leg fused in where the gate opens."""
        before = dict(activation.ranked)
        fused = self._with_meaning(before, query, activation, view, now_ms)
        if fused is before:
            return activation
        ordered = sorted(fused.items(), key=_best_first)[:depth]
        return dataclasses.replace(activation, ranked=tuple(ordered), keys=())

    def _keyword_ranking(self, query: str, view: VisibilityFilter, now_ms: int, limit: int,
                         activation: Activation) -> list[tuple[int, float]]:
        return self.keywords.ranking(query, view, now_ms, limit, [seed.name for seed in activation.seeds],
                                     activation.scope_size, activation.conversational)

    def with_bridge(self, activation: Activation, view: VisibilityFilter, now_ms: int, depth: int) -> Activation:
        """The activation ranking with the second-hop bridge fused in below its best hits."""
        if self.settings.fusion.bridge_weight <= 0 or not activation.ranked:
            return activation
        score_of = dict(activation.ranked)
        first = {node: 1.0 / rank for rank, (node, _) in enumerate(activation.ranked, start=1)}
        fused, bridge = self._with_bridge(first, activation, view, now_ms, depth)
        ordered = [key for key, _ in sorted(fused.items(), key=_best_first)[:depth]]
        ranked = tuple((key, score_of.get(key, bridge.get(key, 0.0))) for key in ordered)
        return dataclasses.replace(activation, ranked=ranked, keys=tuple(fused[key] for key in ordered))

    def _with_bridge(self, fused: dict[int, float], activation: Activation, view: VisibilityFilter, now_ms: int,
                     depth: int) -> tuple[dict[int, float], dict[int, float]]:
        """Keep the first pass's best hits on top; re-rank the rest with the bridge ranking fused in.

        Returns the fused scores and the bridge's own activation per memory node.
        """
        fusion = self.settings.fusion
        ordered = [key for key, _ in sorted(fused.items(), key=_best_first)]
        sources = ordered[: fusion.bridge_sources]
        if not sources:
            return fused, {}
        bridge_ranked = self._bridge(activation, sources, view, now_ms, depth)
        bridge = [node for node, _ in bridge_ranked]
        rest = reciprocal_rank_fusion([ordered[len(sources):], bridge], [1.0, fusion.bridge_weight], k=fusion.rrf_k)
        # The sources keep their first-pass scores; the rest is scaled just below the weakest source,
        # so scores stay on the first pass's scale and the order is what the two stages decided.
        floor = min(fused[key] for key in ordered[: len(sources)])
        ceiling = max(rest.values(), default=0.0) or 1.0
        scaled = {key: 0.999 * floor * value / ceiling for key, value in rest.items()}
        return {**{key: fused[key] for key in ordered[: len(sources)]}, **scaled}, dict(bridge_ranked)

    def _bridge(self, activation: Activation, sources: list[int], view: VisibilityFilter, now_ms: int,
                limit: int) -> tuple[tuple[int, float], ...]:
        """Second hop through the best hits: spread from their specific concepts that the query lacks.

        Multi-hop needs reach memories that share nothing with the query but an entity named in a
        first-hop memory (the bridge). Seeding those entities directly, weighted by specificity,
        finds them far more sharply than letting the first walk diffuse over every concept.
        """
        with self.projection.lock:
            seed_names = {seed.name for seed in activation.seeds}
            mask = self.projection.visible_mask(view, now_ms)
            scope = self._scope(view, mask)
            concepts, summed = self._bridge_concepts(sources, seed_names)
            local_df = scope.document_frequency(concepts)
            # Specificity within the filter, and no hubs: a speaker's name bridges to every turn.
            keep = ~scope.is_hub(local_df) & (local_df > 0)  # a bridge must lead into the filter
            specificity = {df: idf(df, scope.size) for df in set(local_df.tolist())}  # few distinct dfs
            weights = summed * np.array([specificity[df] for df in local_df.tolist()])
            if not keep.any():
                return ()
            # The bridged memories are one hop from the bridge concepts: a single sparse product
            # finds them; a full walk from there only blurs the ranking and costs 10x as much.
            nodes, values = hop_spread_sparse(
                scope.restricted, concepts[keep], weights[keep],
                hops=self.settings.fusion.bridge_hops, decay=self.settings.activation.hop_decay,
                prune=self.settings.activation.prune, admit=scope.admit)
            return self._rank(nodes, values, mask, limit, excluded=np.asarray(sources, dtype=np.int64))

    def _bridge_concepts(self, sources: list[int], seed_names: set[str]) -> tuple[IntArray, FloatArray]:
        """The bridge's concepts, in the order the sources (best first) first mention them, and each one's
        mention weights summed over the sources, the source of rank r counting 1/r; hold the projection's lock.

        Only entities, identifiers and phrases bridge, and never a seed of the query. One read of the
        sources' rows; the sums are added in rank order, as a loop over the sources would add them.
        """
        projection = self.projection
        position, targets, weights = projection.graph.rows(np.asarray(sources, dtype=np.int64))
        kinds = projection.kind_names()
        codes = [code for code, kind in enumerate(kinds) if kind in _BRIDGE_KINDS]
        bridging = members(projection.col("concept_kind")[targets], codes)  # memory nodes have no kind (-1)
        position, targets, weights = position[bridging], targets[bridging], weights[bridging]
        # A concept's node is its name's (concept_nodes): the seeds' nodes, not every target's name, are looked up.
        known = projection.concept_nodes
        unseeded = ~members(targets, [known[name] for name in seed_names if name in known])
        position, targets, weights = position[unseeded], targets[unseeded], weights[unseeded]
        if targets.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        unique, first, inverse = np.unique(targets, return_index=True, return_inverse=True)
        summed: FloatArray = np.bincount(inverse, weights=weights / (position + 1), minlength=unique.size).astype(
            np.float64, copy=False)
        order = np.argsort(first, kind="stable")
        concepts: IntArray = unique[order].astype(np.int64, copy=False)
        return concepts, summed[order]


def _best_first(item: tuple[int, float]) -> tuple[float, int]:
    """The sort key of a (node, score) entry: the highest score first, equal scores by node."""
    return -item[1], item[0]


def _carriers(names: Sequence[str], mentions: list[tuple[int, float]], vector: FloatArray) -> list[str]:
    flows = [(vector[c] * w, c) for c, w in mentions if vector[c] > 0]
    return [names[c] for _, c in sorted(flows, reverse=True)]


class _Scope:
    """The memories one filter admits, and which concepts are hubs among them.

    A hub is a concept in more than ``activation.hub_share`` of the filter's memories (and more than
    ``activation.hub_min_df`` of them, so a small project keeps its concepts). Hubs neither seed nor
    carry activation: in a conversation the speakers' names and the dates' parts are in most turns,
    and spreading through them reaches everything equally.

    Built once per filter and kept while the graph and the filter's mask are unchanged (:class:`_ScopeCache`):
    every concept's document frequency within the filter, the nodes a walk may enter, and the graph
    restricted to them, so a query reads only the filter's edges, whatever else the store holds.
    """

    def __init__(self, projection: GraphProjection, mask: np.ndarray, params: ActivationSettings,
                 previous: _Scope | None = None) -> None:
        self.projection = projection
        self.graph = projection.graph
        self.version = self.graph.version
        # A shared read-only mask (GraphProjection.visible_mask) is kept as it is; a caller's own may change.
        self.mask = mask if not mask.flags.writeable else mask.copy()
        self.size = int(mask.sum())
        self.limit = max(params.hub_share * self.size, float(params.hub_min_df))
        is_concept = projection.col("node_type") == CONCEPT
        self.unfiltered = self.size == projection.store_memory_count  # a partial projection is a filter
        # int32 halves what a cached filter holds; read back as int64 (document_frequency).
        if self.unfiltered:  # no filter: the stored df is the local one
            self.local_df = projection.col("df").astype(np.int32)
        else:
            self.local_df = self.graph.column_counts(np.flatnonzero(mask)).astype(np.int32)
        self._admitted = mask | (is_concept & ~(self.local_df > self.limit))
        # The walk never enters another project's memories: spread over the edges into this filter only.
        reach = mask | is_concept
        self.restricted: RestrictedGraph
        self.reach: np.ndarray
        if previous is not None and previous.restricted.current and _same_prefix(reach, previous.reach):
            self.restricted, self.reach = previous.restricted, previous.reach
        else:
            self.restricted, self.reach = self.graph.restricted(reach), reach

    def fits(self, projection: GraphProjection, mask: np.ndarray) -> bool:
        """Whether this scope still describes ``mask`` over the projection's current graph."""
        if projection.graph is not self.graph or self.graph.version != self.version:
            return False
        if mask is self.mask:  # the same cached mask (one second and write generation): no pass over every node
            return True
        if not np.array_equal(mask, self.mask):
            return False
        if not mask.flags.writeable:  # the filter's shared mask of a later second: compared once, then kept
            self.mask = mask
        return True

    def document_frequency(self, concepts: IntArray) -> IntArray:
        df: IntArray = self.local_df[concepts].astype(np.int64)
        return df

    def is_hub(self, local_df: IntArray) -> np.ndarray:
        return np.asarray(local_df) > self.limit

    def admit(self, nodes: IntArray) -> np.ndarray:
        """Keep the filter's memories and every concept that is not a hub of the filter."""
        admitted: np.ndarray = self._admitted[nodes]
        return admitted


def _same_prefix(current: np.ndarray, before: np.ndarray) -> bool:
    """``before`` is ``current`` as it was over the nodes that existed then (later nodes have no base edges)."""
    return current.size >= before.size and np.array_equal(current[: before.size], before)


class _ScopeCache:
    """The last few filters' scopes, reused while the graph and the filter's mask are unchanged."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._scopes: dict[VisibilityFilter, _Scope] = {}

    def get(self, view: VisibilityFilter, projection: GraphProjection, mask: np.ndarray,
            params: ActivationSettings) -> _Scope:
        # A scope holds its projection's graph: one a pool evicted must not outlive it here until eight more
        # filters have passed (a flag, not the pool's lock: the caller holds the projection's lock).
        for retired in [key for key, kept in self._scopes.items() if kept.projection.retired]:
            del self._scopes[retired]
        scope = self._scopes.get(view)
        if scope is not None and scope.fits(projection, mask):
            return scope
        previous = scope if scope is not None and scope.graph is projection.graph else None
        scope = _Scope(projection, mask, params, previous)
        if view not in self._scopes and len(self._scopes) >= self.size:
            self._scopes.pop(next(iter(self._scopes)))
        self._scopes[view] = scope
        return scope
