"""A synthetic agent-memory generator with a realistic concept distribution, for benchmarks.

Words follow a Zipf law (s ≈ 1.1, as in natural text), so a few concepts are hubs and most are
rare; about one observation in three carries a code identifier (snake_case, CamelCase, dotted or a
path) drawn from its own Zipf pool; projects and kinds are skewed the same way. Queries are 2–4
words drawn from one stored observation, so every query has at least one relevant memory.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

__all__ = ["observations", "queries"]

_SYLLABLES = ["ka", "lo", "mi", "ren", "sto", "vex", "dar", "pul", "qui", "zen", "bro", "tal", "ger", "fin",
              "mor", "sal", "tek", "nu", "plo", "wra"]
_GLUE = ["the", "a", "to", "of", "and", "for", "with", "when", "after", "because", "in", "on"]
_KINDS = ["note", "decision", "error", "pattern", "architecture", "solution", "summary"]


def _vocabulary(size: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _identifier(words: list[str], rng: random.Random) -> str:
    a, b = rng.choice(words), rng.choice(words)
    style = rng.randrange(4)
    if style == 0:
        return f"{a}_{b}"
    if style == 1:
        return a.capitalize() + b.capitalize()
    if style == 2:
        return f"{a}.{b}"
    return f"src/{a}/{b}.py"


def observations(count: int, *, seed: int = 7, vocabulary: int = 20_000) -> Iterator[dict[str, object]]:
    """``count`` observation records ready for ``MemoryService.store_many``."""
    rng = random.Random(seed)
    words = _vocabulary(vocabulary, rng)
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(len(words))]
    identifiers = [_identifier(words, rng) for _ in range(vocabulary // 4)]
    id_weights = [1.0 / (rank + 1) for rank in range(len(identifiers))]
    projects = [f"project-{n}" for n in range(12)]
    for n in range(count):
        content_words = rng.choices(words, weights, k=rng.randint(8, 18))
        sentence = []
        for word in content_words:
            sentence.append(word)
            # About half the tokens of English prose are function words; runs of content words
            # average under two, which is what phrase extraction sees in real observations.
            if rng.random() < 0.55:
                sentence.append(rng.choice(_GLUE))
        if rng.random() < 0.35:
            sentence.insert(rng.randrange(len(sentence)), rng.choices(identifiers, id_weights)[0])
        yield {"content": " ".join(sentence).capitalize() + f" (#{n}).",
               "kind": rng.choices(_KINDS, [5, 3, 3, 2, 1, 2, 1])[0],
               "project": rng.choices(projects, [1.0 / (p + 1) for p in range(len(projects))])[0]}


def queries(records: list[dict[str, object]], count: int, *, seed: int = 11) -> list[str]:
    """Queries of 2–4 content words taken from random stored observations."""
    rng = random.Random(seed)
    picked = []
    for _ in range(count):
        content = str(rng.choice(records)["content"]).split(" (#")[0]
        tokens = [t for t in content.lower().split() if t not in _GLUE and len(t) > 3]
        picked.append(" ".join(rng.sample(tokens, min(len(tokens), rng.randint(2, 4)))))
    return picked
