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

from graphmem.errors import InvalidInput, StoreMissing

__all__ = [
    "SUPPORTED_URLS",
    "ActivationSettings",
    "DecaySettings",
    "FusionSettings",
    "HttpSettings",
    "LifecycleSettings",
    "LimitSettings",
    "ProjectionSettings",
    "Settings",
    "StoreLocation",
    "check_database_url",
    "default_db_path",
    "find_config",
    "find_store",
    "init_location",
    "masked",
    "sqlite_path",
    "store_location",
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
    nested_phrase_weight: float = Field(0.5, ge=0.0, le=1.0,
                                        description="a query phrase inside a longer phrase the query also matched "
                                                    "seeds at this share of its weight (the longer one already "
                                                    "counts its words)")


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
    context_weight: float = Field(0.8, ge=0.0, le=1.0,
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


class SemanticSettings(BaseModel):
    """Meaning beside spelling: static embeddings in the graph and in search (docs/retrieval.md, "Semantic").

    Every default was chosen on the four dev sets together (scripts/ablate_semantic.py), never on one.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    enabled: bool = Field(True, description="use the static embedding model (needs the wordllama package)")
    related_k: int = Field(0, ge=0, le=50,
                           description="relatedness edges a word keeps to its nearest words (0: off, measured a loss)")
    related_threshold: float = Field(0.8, ge=0.0, le=1.0, description="cosine a relatedness edge needs")
    related_weight: float = Field(0.2, ge=0.0, description="edge weight per unit of cosine (mention edges are ~1)")
    join_weight: float = Field(1.0, ge=0.0, description="edge between forms of one concept (roll back / rollback)")
    seed_threshold: float = Field(1.0, ge=0.0, le=1.0,
                                  description="an unmatched query word seeds known words this close (1: off)")
    search_weight: float = Field(1.0, ge=0.0,
                                 description="weight of the semantic leg where the gate is open (cosine, or RRF)")
    gate_open: float = Field(0.10, ge=0.0, le=1.0,
                             description="the semantic leg counts fully while the best hits cover less of the query")
    gate_closed: float = Field(0.25, ge=0.0, le=1.0,
                               description="and not at all once they cover this much (linear in between)")
    min_similarity: float = Field(0.25, ge=0.0, le=1.0,
                                  description="cosine a memory needs to enter the ranking by meaning alone")
    fusion: Literal["rrf", "score"] = Field("score", description="how the open gate fuses meaning with the ranking")
    keyword_share: float = Field(0.15, ge=0.0, le=10.0, description="score fusion: the first ranking's share")
    name_weight: float = Field(0.2, ge=0.0, le=10.0,
                               description="score fusion: weight of the share of the query's names a memory mentions")
    turn_weight: float = Field(0.0, ge=0.0,
                               description="the leg's weight factor on conversation turns (0: measured a loss there)")
    turn_affinity_weight: float = Field(1.0, ge=0.0, le=10.0,
                                        description="on conversation turns, a candidate's score is multiplied by "
                                                    "1 + this x its cosine with the query once the filter's mean "
                                                    "vector is taken from both (0: off)")
    cover_threshold: float = Field(0.55, ge=0.0, le=1.0,
                                   description="composition: a need counts as covered by a concept this close")
    cells_min_rows: int = Field(200_000, ge=1,
                                description="a scope of at least this many memories is ranked by meaning from "
                                            "coarse cells, not an exact scan of every vector")
    cells_probe: int = Field(48, ge=0, le=10_000,
                             description="coarse cells a query reads (0: always the exact scan)")
    cells_per_million: int = Field(1000, ge=16, le=100_000,
                                   description="coarse cells of a million-memory table (about the square root "
                                               "of the rows)")


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


class ProjectionSettings(BaseModel):
    """What a server holds in memory (docs/scaling.md): the whole store's projection, or one per project."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    partition: Literal["none", "project"] = Field(
        "none", description='"none": one projection of the whole store; "project": one per project queried, '
                            "loaded on its first query, evicted least recently used under budget_mib")
    budget_mib: int = Field(1024, ge=1, le=1_048_576,
                            description="partition = project: the projections a server keeps, in MiB")


class Settings(BaseModel):
    """All of graphmem's configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    db: str = Field(default_factory=lambda: str(default_db_path()),
                    description="SQLite path or SQLAlchemy URL (postgresql+psycopg://...)")
    replica_db: str | None = Field(None, description="a PostgreSQL streaming replica of db: reads go there once "
                                                     "it has replayed what the process reflects, writes to db")
    nlp_model: str = Field("blank", description='"blank" (no download) or an installed spaCy pipeline name')
    tools: Literal["core", "full", "kirograph", "kyew", "cortexgraph", "tam", "reference"] = Field(
        "core", description="the MCP tool profile graphmem serve exposes (core, full, or a seed dialect)")
    project: str | None = Field(None, description="the project of every MCP call that names none; graphmem serve "
                                                  "on the per-user store sets it to the repository it starts in")
    import_workers: int = Field(1, ge=0, le=16, description="worker processes that parse ahead during bulk import")
    activation: ActivationSettings = ActivationSettings()
    fusion: FusionSettings = FusionSettings()
    semantic: SemanticSettings = SemanticSettings()
    limits: LimitSettings = LimitSettings()
    decay: DecaySettings = DecaySettings()
    lifecycle: LifecycleSettings = LifecycleSettings()
    http: HttpSettings = HttpSettings()
    projection: ProjectionSettings = ProjectionSettings()

    @classmethod
    def load(cls, *, config_file: Path | None = None, environ: Mapping[str, str] | None = None,
             **overrides: Any) -> Settings:
        """Read ``graphmem.toml`` (or ``GRAPHMEM_CONFIG``) and ``GRAPHMEM_*`` variables, then ``overrides``."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        path = config_file or (Path(environ["GRAPHMEM_CONFIG"]) if environ.get("GRAPHMEM_CONFIG") else find_config())
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
CONFIG_FILE = "graphmem.toml"


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
        """The SQLite file (named by a path or a ``sqlite:///`` URL), or ``None`` for a server database or an
        in-memory store."""
        return sqlite_path(self.db)

    def shown(self) -> str:
        """The location as printed on stderr: a path, or a URL with its password masked."""
        return masked(self.db)

    def exists(self) -> bool:
        """Whether the store is there: its SQLite file, or graphmem's tables in a server database."""
        if self.path is not None:
            return self.path.exists()
        if "://" not in self.db or self.db.startswith("sqlite"):
            return False  # in memory: new on every open
        from graphmem.store.engine import store_exists  # SQLAlchemy loads only for a server database

        return store_exists(self.db)

    def prepare(self, *, create: bool) -> bool:
        """Make sure the store may be opened: ``True`` if it is new (created on open), an error naming it and
        the command that creates it if it is missing and ``create`` is false. Nothing is written before."""
        if self.db in {"", ":memory:", "sqlite://", "sqlite:///:memory:"} or self.exists():
            return False
        if not create:
            path = self.path
            missing = "" if path is None or path.parent.is_dir() else f" (the directory {path.parent} does not exist)"
            raise StoreMissing(f"no graphmem store at {self.shown() if path is None else path}{missing}; "
                               f"create it with `graphmem --db {self.shown()} init` or add --create")
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        return True


SUPPORTED_URLS = "SQLite (a path, or sqlite:///path) or PostgreSQL (postgresql+psycopg://user@host/db)"


def masked(db: str) -> str:
    """``db`` with a URL's password replaced by ``***``.

    >>> masked("postgresql+psycopg://me:secret@host/db")
    'postgresql+psycopg://me:***@host/db'
    """
    return re.sub(r"://([^:/@]*):[^@/]*@", r"://\1:***@", db)


def check_database_url(db: str) -> str:
    """``db`` if graphmem can store there: a path, a ``sqlite:`` or a ``postgresql:`` URL; else a readable error.

    >>> check_database_url("mysql://me@host/db")
    Traceback (most recent call last):
    ...
    graphmem.errors.InvalidInput: unsupported database URL mysql://me@host/db: graphmem stores in SQLite (a path, \
or sqlite:///path) or PostgreSQL (postgresql+psycopg://user@host/db)
    """
    if "://" in db and db.split("://", 1)[0].split("+", 1)[0] not in {"sqlite", "postgresql"}:
        raise InvalidInput(f"unsupported database URL {masked(db)}: graphmem stores in {SUPPORTED_URLS}")
    return db


def sqlite_path(db: str) -> Path | None:
    """The SQLite file ``db`` names, as a path or a ``sqlite:///`` URL; ``None`` for anything else.

    >>> sqlite_path("sqlite:////srv/memory.db"), sqlite_path("memory.db"), sqlite_path("sqlite://")
    (PosixPath('/srv/memory.db'), PosixPath('memory.db'), None)
    """
    if db.startswith("sqlite:///"):
        db = db.removeprefix("sqlite:///").split("?", 1)[0]
    elif "://" in db:
        return None
    return None if db in {"", ":memory:"} else Path(db).expanduser()


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


def find_config(cwd: Path | None = None) -> Path:
    """``graphmem.toml`` by the rule that finds the project store: the nearest one up from the working directory,
    never above the project (the folder holding the nearest ``.graphmem/``). Outside a project, the nearest one."""
    start = (cwd or Path.cwd()).absolute()
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder / CONFIG_FILE
        if (folder / STORE_DIR).is_dir():
            break
    return start / CONFIG_FILE  # none: the defaults apply


def project_of(cwd: Path | None = None) -> str | None:
    """The project a directory belongs to: the name of the nearest folder up from it that holds a project store
    (``.graphmem/``) or a git repository; ``None`` outside both.

    >>> project_of(Path("/"))
    """
    start = (cwd or Path.cwd()).absolute()
    for folder in (start, *start.parents):
        if (folder / STORE_DIR).is_dir() or (folder / ".git").exists():
            return folder.name or None
    return None


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
        return StoreLocation(check_database_url(settings.db), "explicit")
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
