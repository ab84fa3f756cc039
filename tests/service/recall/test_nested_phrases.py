"""A query phrase inside a longer one the query also matched seeds at ``activation.nested_phrase_weight``."""

from __future__ import annotations

import pytest

from graphmem import MemoryService, Settings
from graphmem.core.ranking import nested_phrases

QUERY = "Which English cricketer born in Christchurch produced an album?"


def _seed_weights(db: str, weight: float) -> dict[str, float]:
    service = MemoryService(Settings.load(environ={}, db=db, activation={"nested_phrase_weight": weight}))
    try:
        service.store_many([{"content": text} for text in (
            "Richard Vincent was an English cricketer born in London; he toured New Zealand once.",
            "Ben Stokes is an English international cricketer, born in Christchurch, New Zealand.",
            "Christchurch hosts a cathedral and a botanic garden.")])
        return {seed.name: seed.weight for seed in service.associate(QUERY).seed_nodes}
    finally:
        service.close()


def test_a_phrase_inside_a_longer_matched_phrase_seeds_at_the_configured_share(tmp_path) -> None:
    full = _seed_weights(str(tmp_path / "full.db"), 1.0)
    half = _seed_weights(str(tmp_path / "half.db"), 0.5)
    assert {"english cricketer born", "english cricketer", "cricketer born"} <= set(full)
    for nested in ("english cricketer", "cricketer born"):  # both inside "english cricketer born"
        assert half[nested] == pytest.approx(full[nested] / 2, abs=1e-5)
    for whole in ("english cricketer born", "english", "cricketer", "christchurch"):  # the longest, and words
        assert half[whole] == pytest.approx(full[whole])


def test_nested_phrases_are_runs_of_whole_words_inside_another_name() -> None:
    names = ["new york stock exchange", "stock exchange", "york stock", "new york", "exchange", "ork sto"]
    assert nested_phrases(names) == {"stock exchange", "york stock", "new york"}
    assert nested_phrases(["stock exchange", "stock"]) == set()  # a single word is never nested
    assert nested_phrases([]) == set()
