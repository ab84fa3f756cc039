"""Conversational memories: recognizing turns, their speakers, and the cues turns give a ranking.

Agents store conversations as one memory per turn: ``"Caroline: I went to a support group yesterday
(said on 8 May 2023)"``. Such a store differs from a document store in ways measured on the LoCoMo
dev set (docs/retrieval.md, "Conversations"):

* neighbouring turns answer each other (a question in one turn, the answer in the next), so a keyword
  hit's score is shared with the turns around it;
* a question that names one of the conversation's speakers is mostly about what that speaker said;
* a turn's concepts are passing mentions, not topics: the second-hop bridge through them, the largest
  gain on Wikipedia-style passages, reaches unrelated turns, and spreading adds nothing over keywords.

A filter's memories are *turn-like* when most of them open with a short speaker prefix (``Name:``)
and are short. Nothing here depends on a data set: the test is on the memories' shape only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from graphmem.store.projection import GraphProjection
from graphmem.store.repository import Repository

__all__ = ["TurnIndex", "named_speakers", "speaker_of_text"]

# "Caroline: ...", "Dr. Ann Lee: ...", "user: ...", "assistant: ...": one to three name words and a colon
# at the very start. A time ("1:56 pm") or a URL ("https://") is not a speaker.
_SPEAKER = re.compile(r"^\s*([^\W\d_][\w'.\-]{0,30}(?: [^\W\d_][\w'.\-]{0,30}){0,2}):(?:\s|$)")
_HEAD_CHARS = 64
_SAMPLE = 64  # memories sampled to decide whether a filter holds turns
_PREFETCH_MAX = 50_000  # a conversational filter up to this size has all its speakers read at once
_SPEAKER_SAMPLE = 4_096  # turns read for a larger filter's speaker names


def _nodes_of(admitted: np.ndarray) -> np.ndarray:
    """A filter's memory nodes, ascending: ``admitted`` itself, or the nodes a boolean mask admits."""
    return np.flatnonzero(admitted) if admitted.dtype == np.bool_ else admitted


def speaker_of_text(text: str) -> str:
    """The casefolded speaker prefix of one memory's text, or ``""`` when it has none."""
    match = _SPEAKER.match(text)
    return match.group(1).casefold() if match else ""


def named_speakers(query: str, speakers: Iterable[str]) -> set[str]:
    """The speakers (casefolded names) that ``query`` names as whole words."""
    folded = query.casefold()
    return {name for name in speakers if name and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", folded)}


class TurnIndex:
    """Speaker per memory (read lazily from the rows, cached by seq) and whether a filter holds turns."""

    def __init__(self, repository: Repository, *, turn_share: float, max_concepts: float) -> None:
        self.repository = repository
        self.turn_share = turn_share
        self.max_concepts = max_concepts
        self._speaker: dict[int, str] = {}
        self._conversational: dict[tuple[int, int, int], bool] = {}
        self._filter_speakers: dict[tuple[int, int, int], frozenset[str]] = {}
        self._count = 0

    def _check_projection(self, projection: GraphProjection) -> None:
        # Content never changes under a seq; a store that lost memories (delete, rebuild) starts over.
        if len(projection.memory_by_seq) < self._count:
            self._speaker.clear()
            self._conversational.clear()
            self._filter_speakers.clear()
        self._count = len(projection.memory_by_seq)

    def speakers(self, projection: GraphProjection, nodes: np.ndarray | list[int]) -> list[str]:
        """The speaker of each memory node (``""``: not a turn)."""
        self._check_projection(projection)
        seqs = projection.col("seq")[np.asarray(nodes, dtype=np.int64)].tolist()
        missing = [seq for seq in seqs if seq not in self._speaker]
        if missing:
            heads = self.repository.content_heads(missing, _HEAD_CHARS)
            for seq in missing:
                self._speaker[seq] = speaker_of_text(heads.get(seq, ""))
        return [self._speaker[seq] for seq in seqs]

    def conversational(self, projection: GraphProjection, admitted: np.ndarray) -> bool:
        """Whether the memories a filter admits look like conversation turns (``admitted``: their nodes, ascending,
        as ``GraphProjection.visible_nodes`` keeps them, or a mask over nodes).

        A deterministic sample of the filter: at least ``turn_share`` of it opens with a speaker prefix,
        the prefixes name few speakers (a conversation, not a list of ``Key: value`` notes), and the
        memories are short (on average at most ``max_concepts`` concepts: turn-sized, not passages).
        """
        self._check_projection(projection)
        visible = _nodes_of(admitted)
        if visible.size == 0:
            return False
        key = (int(visible[0]), int(visible[-1]), int(visible.size))
        cached = self._conversational.get(key)
        if cached is not None:
            return cached
        sample = visible[np.linspace(0, visible.size - 1, min(_SAMPLE, visible.size)).astype(np.int64)]
        names = self.speakers(projection, sample)
        prefixed = [name for name in names if name]
        share = len(prefixed) / len(names)
        few_speakers = len(set(prefixed)) <= max(2, len(prefixed) // 4)
        short = float(np.mean(projection.col("length")[sample])) <= self.max_concepts
        decision = share >= self.turn_share and few_speakers and short
        if decision and visible.size <= _PREFETCH_MAX:
            # Read every turn's speaker once, not a few per query (the keyword leg asks for its candidates').
            self.speakers(projection, visible)
        self._conversational[key] = decision
        return decision

    def filter_speakers(self, projection: GraphProjection, admitted: np.ndarray) -> frozenset[str]:
        """The speakers of the memories a filter admits (``admitted`` as in :meth:`conversational`; all of them up
        to the prefetch size, else a sample of ``_SPEAKER_SAMPLE``: a conversation has few speakers, and a bigger
        filter's heads are not prefetched)."""
        self._check_projection(projection)
        visible = _nodes_of(admitted)
        if visible.size == 0:
            return frozenset()
        key = (int(visible[0]), int(visible[-1]), int(visible.size))
        cached = self._filter_speakers.get(key)
        if cached is None:
            if visible.size > _PREFETCH_MAX:
                visible = visible[np.linspace(0, visible.size - 1, _SPEAKER_SAMPLE).astype(np.int64)]
            cached = frozenset(name for name in self.speakers(projection, visible) if name)
            if len(self._filter_speakers) >= _SAMPLE:
                self._filter_speakers.clear()
            self._filter_speakers[key] = cached
        return cached
