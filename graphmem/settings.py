"""One ``Settings`` object, read once: defaults < ``graphmem.toml`` < ``GRAPHMEM_*`` environment.

Every default is documented, with the measurement that chose it, in ``docs/configuration.md``.
Nested sections map to environment variables with a double underscore, for example
``GRAPHMEM_ACTIVATION__ALPHA=0.6`` or ``GRAPHMEM_FUSION__METHOD=rrf``.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graphmem.errors import InvalidInput

__all__ = [
    "ActivationSettings", "DecaySettings", "FusionSettings", "HttpSettings", "LifecycleSettings", "LimitSettings",
    "Settings", "StoreLocation", "default_db_path", "find_store", "init_location", "store_location",
]


class ActivationSettings(BaseModel):
    """Spreading activation (DESIGN §3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Literal["ppr", "hops"] = "hops"
    alpha: float = Field(0.5, ge=0.0, lt=1.0, description="PPR continuation probability (1 - restart)")
    max_iter: int = Field(50, ge=1, le=1000)
    tol: float = Field(1e-6, gt=0.0)
    prune: float = Field(1e-5, ge=0.0, description="drop activations below this per step (frontier sparsity)")
    hops: int = Field(3, ge=0, le=6)
    hop_decay: float = Field(0.5, gt=0.0, le=1.0)
    specificity: bool = Field(True, description="weight seeds by IDF")
    hub_cap: int = Field(200, ge=1, description="a concept in more memories than this spreads cap/df of its activation")
    hub_share: float = Field(0.1, gt=0.0, le=1.0,
                             description="a concept in more than this share of the filter's memories is a hub: "
                                         "it neither seeds nor carries activation")
    hub_min_df: int = Field(20, ge=1, description="a hub is also in more than this many of the filter's memories")
    cooccurrence: bool = Field(False, description="project the recorded co-occurrence edges (off: measured worse)")
    cooccurrence_weight: float = Field(0.3, ge=0.0)
    cooccurrence_saturation: float = Field(2.0, gt=0.0, description="w(n) = n / (n + k): bounded, monotone")
    relation_weight: float = Field(1.0, ge=0.0)
    length_norm: float = Field(0.25, ge=0.0, le=2.0, description="memory score / n_conceptsᵉ")
    topic_exponent: float = Field(4.0, ge=0.0, le=8.0,
                                  description="concept → memory edge = salienceᵉ: routes activation to memories "
                                              "a concept is central to")


class FusionSettings(BaseModel):
    """How ``memory_search`` fuses BM25 with activation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Literal["rrf", "weighted"] = "rrf"
    bm25_weight: float = Field(1.0, ge=0.0)
    activation_weight: float = Field(2.0, ge=0.0)
    rrf_k: float = Field(60.0, gt=0.0)
    candidates: int = Field(100, ge=1, le=10_000, description="candidates taken from each ranker before fusion")
    bm25_max_df: float = Field(0.05, gt=0.0, le=1.0,
                               description="query words in more than this share of memories are left out of BM25")
    bm25_guard_scope: int = Field(20_000, ge=0,
                                  description="bm25_max_df applies only when the filter admits more memories "
                                              "than this (inside a small filter a common word is a real cue)")
    turn_share: float = Field(0.6, gt=0.0, le=1.0,
                              description="a filter whose sampled memories open with a speaker prefix (\"Name: \") "
                                          "at least this often, name few speakers and are short is a conversation; "
                                          "1 turns conversation handling off")
    turn_max_concepts: float = Field(30.0, gt=0.0,
                                     description="conversation turns average at most this many concepts")
    turn_activation_weight: float = Field(0.25, ge=0.0,
                                          description="RRF weight of activation on conversation turns (no bridge "
                                                      "there)")
    context_weight: float = Field(0.4, ge=0.0, le=1.0,
                                  description="on conversation turns, share of a BM25 hit's score given to the "
                                              "turns just before and after it in the same project")
    context_turns: int = Field(2, ge=0, le=10, description="neighbouring turns on each side that share a hit's score")
    context_decay: float = Field(0.5, ge=0.0, le=1.0, description="the share halves with each further turn")
    speaker_boost: float = Field(2.0, ge=0.0,
                                 description="on conversation turns, a query naming one speaker weighs that "
                                             "speaker's turns by 1 + this")
    bridge_weight: float = Field(2.0, ge=0.0, description="RRF weight of the second-hop (bridge) ranking")
    bridge_hops: int = Field(1, ge=1, le=4, description="hops the bridge spreads from its concepts")
    bridge_sources: int = Field(3, ge=1, le=20, description="best first-pass hits whose entities seed the bridge")


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


class HttpSettings(BaseModel):
    """``serve --transport http``: who may connect and how much one request may ask (docs/security.md).

    The bearer token itself is read from ``GRAPHMEM_HTTP_TOKEN`` or from ``token_file``, never from
    graphmem.toml, so a configuration file can be shared without sharing the secret.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    allowed_hosts: tuple[str, ...] = Field((), description="extra Host values (host:port); loopback is built in")
    allowed_origins: tuple[str, ...] = Field((), description="browser Origins allowed besides the server's own")
    token_file: str | None = Field(None, description="file holding the bearer token (first line)")
    max_body_bytes: int = Field(1_048_576, ge=1_024, le=64 * 1_048_576, description="per-request body limit")
    request_timeout_s: float = Field(60.0, gt=0.0, le=3_600.0,
                                     description="a request not answered by then gets a JSON-RPC error")
    header_timeout_s: float = Field(10.0, gt=0.0, le=600.0,
                                    description="a connection whose request line and headers take longer is closed")

    @field_validator("allowed_hosts", "allowed_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        """``GRAPHMEM_HTTP__ALLOWED_ORIGINS=https://a.example,https://b.example`` from the environment."""
        return tuple(part.strip() for part in value.split(",") if part.strip()) if isinstance(value, str) else value


class DecaySettings(BaseModel):
    """Decay score ``(use_count+1)^β · D(Δt) · strength`` and how it enters ranking (docs/lifecycle.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: Literal["power_law", "exponential", "two_component"] = "power_law"
    beta: float = Field(0.6, ge=0.0, le=3.0, description="use-count exponent")
    alpha: float = Field(1.1, gt=0.0, le=10.0, description="power-law exponent")
    half_life_hours: float = Field(72.0, gt=0.0, description="power-law and exponential half-life")
    fast_half_life_hours: float = Field(12.0, gt=0.0, description="two-component fast trace")
    slow_half_life_hours: float = Field(168.0, gt=0.0, description="two-component slow trace")
    fast_weight: float = Field(0.7, ge=0.0, le=1.0, description="two-component share of the fast trace")
    forget_threshold: float = Field(0.05, ge=0.0, description="gc archives or deletes below this score")
    danger_low: float = Field(0.15, ge=0.0, description="review danger zone: lower edge")
    danger_high: float = Field(0.35, ge=0.0, description="review danger zone: upper edge")
    ranking_weight: float = Field(0.0, ge=0.0, le=1.0,
                                  description="final = relevance · (1 − w + w·min(score, 1)); 0 = off")
    review_blend: float = Field(0.3, ge=0.0, le=1.0,
                                description="share of search slots for review candidates")
    reinforce_on_recall: bool = Field(False, description="search/associate touch what they return")
    strength_boost: float = Field(0.1, ge=0.0, le=1.0, description="touch(boost=True) adds this to strength")
    max_strength: float = Field(2.0, ge=1.0, le=10.0, description="strength cap")


class LifecycleSettings(BaseModel):
    """Forgetting, review, promotion, sessions and metrics (docs/lifecycle.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    protected_kinds: tuple[str, ...] = ("decision", "architecture")
    promote_min_score: float = Field(0.65, ge=0.0)
    promote_min_uses: int = Field(5, ge=0)
    promote_window_days: float = Field(14.0, gt=0.0)
    promote_min_span_hours: float = Field(24.0, ge=0.0)
    vault_path: str | None = Field(None, description="Markdown/Obsidian vault root for promote(export=True)")
    vault_folder: str = Field("graphmem", description="folder inside the vault; never outside it")
    brief_roots: tuple[str, ...] = Field((), description="folders an MCP client may name as a brief root, besides "
                                                         "the project's own and the client's declared roots")
    review_interval_days: float = Field(7.0, gt=0.0, description="first rescheduled review interval")
    review_growth: float = Field(2.0, ge=1.0, description="each reschedule multiplies the interval")
    review_max_interval_days: float = Field(365.0, gt=0.0)
    session_timeout_s: int = Field(7200, ge=60, description="an open session is reused while idle < this")
    auto_sessions: bool = Field(True, description="store() attaches memories to the open session")
    recent_memories: int = Field(10, ge=0, le=100, description="memories a session start returns")
    metrics_flush_s: float = Field(5.0, ge=0.0, description="metrics reach the database at most this late")

    @field_validator("brief_roots", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        """``GRAPHMEM_LIFECYCLE__BRIEF_ROOTS=/work/a,/work/b`` from the environment."""
        return tuple(part.strip() for part in value.split(",") if part.strip()) if isinstance(value, str) else value


class Settings(BaseModel):
    """All of graphmem's configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    db: str = Field(default_factory=lambda: str(default_db_path()),
                    description="SQLite path or SQLAlchemy URL (postgresql+psycopg://...)")
    nlp_model: str = Field("blank", description='"blank" (no download) or an installed spaCy pipeline name')
    tools: Literal["core", "full", "kirograph", "kyew", "cortexgraph", "tam", "reference"] = Field(
        "core", description="the MCP tool profile graphmem serve exposes (core, full, or a seed dialect)")
    import_workers: int = Field(1, ge=0, le=16, description="worker processes that parse ahead during bulk import")
    activation: ActivationSettings = ActivationSettings()
    fusion: FusionSettings = FusionSettings()
    limits: LimitSettings = LimitSettings()
    decay: DecaySettings = DecaySettings()
    lifecycle: LifecycleSettings = LifecycleSettings()
    http: HttpSettings = HttpSettings()

    @classmethod
    def load(cls, *, config_file: Path | None = None, environ: Mapping[str, str] | None = None,
             **overrides: Any) -> Settings:
        """Read ``graphmem.toml`` (or ``GRAPHMEM_CONFIG``) and ``GRAPHMEM_*`` variables, then ``overrides``."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        path = config_file or Path(environ.get("GRAPHMEM_CONFIG", "graphmem.toml"))
        if path.is_file():
            try:
                values = _merge(values, tomllib.loads(path.read_text(encoding="utf-8")))
            except tomllib.TOMLDecodeError as error:
                raise InvalidInput(f"invalid configuration file {path}: {error}") from None
        values = _merge(values, _from_environ(environ))
        values = _merge(values, overrides)
        try:
            return cls.model_validate(values)
        except ValidationError as error:
            # One line per bad key, named as the user wrote it (GRAPHMEM_ACTIVATION__ALPHA or
            # [activation] alpha), instead of a traceback at server start.
            problems = "; ".join(f"{_spelled(err['loc'])}: {err['msg']}" for err in error.errors())
            raise InvalidInput(f"invalid configuration: {problems}") from None


def _spelled(location: tuple[Any, ...]) -> str:
    parts = [str(part) for part in location]
    return f"GRAPHMEM_{'__'.join(parts).upper()} (or {'.'.join(parts)} in graphmem.toml)"


STORE_DIR = ".graphmem"
STORE_FILE = "memory.db"


@dataclass(frozen=True, slots=True)
class StoreLocation:
    """Where the store is, and which rule chose it (docs/configuration.md, "Where the store lives").

    ``source`` is ``"explicit"`` (``--db``, ``GRAPHMEM_DB``, ``db`` in graphmem.toml or ``GRAPHMEM_HOME``),
    ``"project"`` (the nearest ``.graphmem/`` up from the working directory) or ``"user"`` (the per-user
    data directory, the fallback a server started from anywhere gets).
    """

    db: str
    source: Literal["explicit", "project", "user"]

    @property
    def path(self) -> Path | None:
        """The SQLite file, or ``None`` for a database URL or an in-memory store."""
        if "://" in self.db or self.db in {"", ":memory:"}:
            return None
        return Path(self.db).expanduser()

    def shown(self) -> str:
        """The location as printed on stderr: a path, or a URL with its password masked."""
        return re.sub(r"://([^:/@]*):[^@/]*@", r"://\1:***@", self.db)


def find_store(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> StoreLocation:
    """The default store when none is named: the nearest ``.graphmem/`` up the tree, else the user's.

    The per-user store is ``$XDG_DATA_HOME/graphmem/memory.db`` (``~/.local/share/graphmem/memory.db``),
    so an MCP client that starts ``graphmem serve`` from any directory always gets the same memory
    instead of a new, empty one wherever it happened to start.
    """
    environ = os.environ if environ is None else environ
    if environ.get("GRAPHMEM_HOME"):
        return StoreLocation(str(Path(environ["GRAPHMEM_HOME"]).expanduser().absolute() / STORE_FILE), "explicit")
    start = (cwd or Path.cwd()).absolute()
    for folder in (start, *start.parents):
        if (folder / STORE_DIR).is_dir():
            return StoreLocation(str(folder / STORE_DIR / STORE_FILE), "project")
    data_home = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return StoreLocation(str(Path(data_home) / "graphmem" / STORE_FILE), "user")


def init_location(cwd: Path | None = None) -> Path:
    """Where ``graphmem init`` puts a new project store: the git root's ``.graphmem/``, else the cwd's."""
    start = (cwd or Path.cwd()).absolute()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder / STORE_DIR / STORE_FILE
    return start / STORE_DIR / STORE_FILE


def store_location(settings: Settings, environ: Mapping[str, str] | None = None) -> StoreLocation:
    """The store ``settings`` name, and why: given explicitly, or found by :func:`find_store`."""
    if "db" in settings.model_fields_set:
        return StoreLocation(settings.db, "explicit")
    return find_store(environ=environ)


def default_db_path() -> Path:
    """The default store's file when none is named (see :func:`find_store`)."""
    return Path(find_store().db)


def _from_environ(environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith("GRAPHMEM_") or name in {"GRAPHMEM_CONFIG", "GRAPHMEM_HOME", "GRAPHMEM_HTTP_TOKEN"}:
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
