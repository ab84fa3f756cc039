"""One ``Settings`` object, read once: defaults < ``graphmem.toml`` < ``GRAPHMEM_*`` environment.

Every default is documented, with the measurement that chose it, in ``docs/configuration.md``.
Nested sections map to environment variables with a double underscore, for example
``GRAPHMEM_ACTIVATION__ALPHA=0.6`` or ``GRAPHMEM_FUSION__METHOD=rrf``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ActivationSettings", "FusionSettings", "LimitSettings", "Settings", "default_db_path"]


class ActivationSettings(BaseModel):
    """Spreading activation (DESIGN §3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Literal["ppr", "hops"] = "ppr"
    alpha: float = Field(0.5, ge=0.0, lt=1.0, description="PPR continuation probability (1 - restart)")
    max_iter: int = Field(50, ge=1, le=1000)
    tol: float = Field(1e-6, gt=0.0)
    prune: float = Field(1e-5, ge=0.0, description="drop activations below this per step (frontier sparsity)")
    hops: int = Field(2, ge=0, le=6)
    hop_decay: float = Field(0.5, gt=0.0, le=1.0)
    specificity: bool = Field(True, description="weight seeds by IDF")
    hub_cap: int = Field(200, ge=1, description="a concept in more memories than this spreads cap/df of its activation")
    cooccurrence: bool = True
    cooccurrence_weight: float = Field(0.3, ge=0.0)
    cooccurrence_saturation: float = Field(2.0, gt=0.0, description="w(n) = n / (n + k): bounded, monotone")
    relation_weight: float = Field(1.0, ge=0.0)
    length_norm: float = Field(0.5, ge=0.0, le=2.0, description="memory score / n_conceptsᵉ")


class FusionSettings(BaseModel):
    """How ``memory_search`` fuses BM25 with activation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Literal["rrf", "weighted"] = "rrf"
    bm25_weight: float = Field(1.0, ge=0.0)
    activation_weight: float = Field(1.0, ge=0.0)
    rrf_k: float = Field(60.0, gt=0.0)
    candidates: int = Field(100, ge=1, le=10_000, description="candidates taken from each ranker before fusion")


class LimitSettings(BaseModel):
    """Boundary limits (cortexgraph's documented sizes)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_content_chars: int = 50_000
    max_tags: int = 50
    max_tag_chars: int = 100
    max_entities: int = 100
    max_source_chars: int = 500
    max_context_chars: int = 1_000
    max_query_chars: int = 10_000
    max_results: int = 100
    max_open_ids: int = 100


class Settings(BaseModel):
    """All of graphmem's configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    db: str = Field(default_factory=lambda: str(default_db_path()),
                    description="SQLite path or SQLAlchemy URL (postgresql+psycopg://...)")
    nlp_model: str = Field("blank", description='"blank" (no download) or an installed spaCy pipeline name')
    activation: ActivationSettings = ActivationSettings()
    fusion: FusionSettings = FusionSettings()
    limits: LimitSettings = LimitSettings()

    @classmethod
    def load(cls, *, config_file: Path | None = None, environ: Mapping[str, str] | None = None,
             **overrides: Any) -> Settings:
        """Read ``graphmem.toml`` (or ``GRAPHMEM_CONFIG``) and ``GRAPHMEM_*`` variables, then ``overrides``."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        path = config_file or Path(environ.get("GRAPHMEM_CONFIG", "graphmem.toml"))
        if path.is_file():
            values = _merge(values, tomllib.loads(path.read_text(encoding="utf-8")))
        values = _merge(values, _from_environ(environ))
        values = _merge(values, overrides)
        return cls.model_validate(values)


def default_db_path() -> Path:
    """Per-project default: ``.graphmem/memory.db`` under the current working directory.

    ``GRAPHMEM_HOME`` moves the folder. Each project keeps its own memory next to its code, as
    KiroGraph does, so two repositories never share (or leak) memories by accident.
    """
    return Path(os.environ.get("GRAPHMEM_HOME", ".graphmem")) / "memory.db"


def _from_environ(environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith("GRAPHMEM_") or name in {"GRAPHMEM_CONFIG", "GRAPHMEM_HOME"}:
            continue
        path = name.removeprefix("GRAPHMEM_").lower().split("__")
        node = values
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = raw
    return values


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged
