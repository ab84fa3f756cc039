"""Start-up stays cheap: ``graphmem --help`` loads no heavy library; ``import nlp`` loads no spaCy.

These check ``sys.modules`` in a fresh interpreter instead of timing anything: what a command imports is
deterministic, while wall time depends on the machine (``scripts/bench_startup.py`` measures that).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("spacy", "scipy", "sqlalchemy", "sqlmodel", "mcp", "networkx", "numpy", "graphmem.service")
# What opening the service loads (its use cases, the store, the graph and text libraries): the MCP server answers
# initialize and tools/list without any of it.
SERVICE = ("graphmem.service.memory_service", "graphmem.store", "nlp", "spacy", "scipy", "sqlalchemy", "sqlmodel",
           "networkx", "numpy")


def _loaded_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"import json; print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_building_the_cli_parser_imports_no_heavy_library():
    assert _loaded_after("import graphmem.cli; graphmem.cli.build_parser()") == []


def test_help_and_version_run_without_a_heavy_import():
    code = ("import contextlib, io, graphmem.cli\n"
            "for argv in (['--help'], ['--version'], ['store', '--help']):\n"
            "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "        graphmem.cli.main(argv)")
    assert _loaded_after(code) == []


def test_the_package_names_load_on_first_use():
    assert _loaded_after("import graphmem") == []
    assert "graphmem.service" in _loaded_after("from graphmem import MemoryService")


def test_the_concept_extractor_loads_spacy_on_first_parse():
    assert "spacy" not in _loaded_after("from nlp import ConceptExtractor; ConceptExtractor()")
    assert "spacy" in _loaded_after("from nlp import ConceptExtractor; ConceptExtractor().parse('a webhook')")


def test_the_server_and_an_open_service_load_spacy_only_on_first_parse(tmp_path):
    # spaCy's import is over a second: `serve` answers initialize, and `stats` / `show` / `export` finish,
    # without it (the BM25 leg's word list once imported it through nlp.query).
    db = str(tmp_path / "memory.db")
    opened = (f"from graphmem import MemoryService, Settings\nfrom graphmem.server import build_server\n"
              f"settings = Settings.load(environ={{}}, db={db!r})\nbuild_server(settings)\n"
              f"service = MemoryService(settings)")
    assert "spacy" not in _loaded_after(opened)
    assert "spacy" in _loaded_after(opened + "\nservice.store('Canary deploys use the flamingo flag service')")


def test_a_command_imports_with_the_collector_paused_and_works_with_it_on(tmp_path, monkeypatch):
    # Start-up imports make almost no cyclic garbage but trigger full collections over everything imported
    # (a fifth of the server's import CPU); the collector is back on once the service is built.
    import gc

    from graphmem import cli
    from graphmem.cli.app import open_service

    # What start-up made is frozen (no collection walks it again, the interpreter's at exit included: a quarter of
    # a small command's CPU); a later command in the same process collects it as usual again.
    seen: list[tuple[str, bool, bool]] = []

    def command(args):
        """Stats."""
        seen.append(("importing", gc.isenabled(), gc.get_freeze_count() > 0))
        service = open_service(args)
        seen.append(("service built", gc.isenabled(), gc.get_freeze_count() > 0))
        service.close()

    monkeypatch.setitem(cli.COMMANDS, "stats", (command, "graphmem stats"))
    assert gc.isenabled()
    try:
        for _ in range(2):
            assert cli.main(["--db", str(tmp_path / "memory.db"), "--create", "stats"]) == 0
    finally:
        gc.unfreeze()
    assert seen == [("importing", False, False), ("service built", True, True)] * 2
    assert gc.isenabled()


def test_a_server_collects_again_once_its_service_is_open_and_leaves_start_up_objects_frozen(tmp_path):
    # The server's full collections walked every start-up object (200 ms each, docs/benchmarks.md 7c): once the
    # service is open, what is alive is frozen and the collector is on again for what serving makes.
    import gc

    from graphmem.cli.app import collector_paused
    from graphmem.cli.start import _open_then_collect
    from graphmem.settings import Settings

    try:
        with collector_paused():
            assert not gc.isenabled()
            service = _open_then_collect(Settings.load(environ={}, db=str(tmp_path / "memory.db")))
            assert gc.isenabled() and gc.get_freeze_count() > 0
            service.close()
    finally:
        gc.unfreeze()
    assert gc.isenabled()


def test_a_failing_command_leaves_the_collector_as_it_found_it(monkeypatch):
    import gc

    from graphmem import cli
    from graphmem.errors import InvalidInput

    def command(args):
        """Stats."""
        raise InvalidInput("no")

    monkeypatch.setitem(cli.COMMANDS, "stats", (command, "graphmem stats"))
    assert cli.main(["stats"]) == 2
    assert gc.isenabled()
    gc.disable()
    try:
        assert cli.main(["stats"]) == 2
        assert not gc.isenabled()  # a caller that runs without the collector keeps it off
    finally:
        gc.enable()


def test_a_server_of_graphmems_own_tools_on_sqlite_loads_no_dialect_it_does_not_serve(tmp_path):
    # The five seed dialects and SQLAlchemy's PostgreSQL dialect were imported by every server and command.
    db = str(tmp_path / "memory.db")
    opened = (f"from graphmem import MemoryService, Settings\nfrom graphmem.server import build_server\n"
              f"settings = Settings.load(environ={{}}, db={db!r})\nbuild_server(settings, tools='full')\n"
              f"MemoryService(settings).close()\nimport sys\n"
              f"print(json.dumps(sorted(m for m in sys.modules if 'dialects.postgresql' in m\n"
              f"                        or m.startswith('graphmem.server.dialects.'))))")
    probe = f"import json\n{opened}"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_a_dialect_profile_loads_its_dialect_when_asked_for():
    code = ("import json, sys\nfrom graphmem.server.profiles import PROFILES, resources_of, tools_of\n"
            "names = list(PROFILES)\nkyew = len(tools_of('kyew'))\nresources = len(resources_of('reference'))\n"
            "print(json.dumps([names, kyew > 0, resources, 'graphmem.server.dialects.tam' in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    names, kyew, resources, tam = json.loads(done.stdout.splitlines()[-1])
    assert names == ["core", "full", "kyew", "tam", "reference", "cortexgraph", "kirograph"]
    assert kyew and resources == 1 and not tam


def test_the_server_answers_initialize_and_lists_its_tools_before_importing_the_service(tmp_path):
    # An agent client waits for initialize at every session start: the service (3 s of imports and opening under
    # load) opens on a thread after the server starts; here that thread is held until the tools are listed.
    db = str(tmp_path / "memory.db")
    code = (f"import json, sys, threading, anyio\nfrom mcp import Client\n"
            f"from graphmem.settings import Settings\nfrom graphmem.server import build_server\n"
            f"gate = threading.Event()\nloaded = []\n"
            f"def open_service(settings):\n"
            f"    gate.wait()\n    from graphmem.service import MemoryService\n    return MemoryService(settings)\n"
            f"async def main():\n"
            f"    server = build_server(Settings.load(environ={{}}, db={db!r}), tools='full',\n"
            f"                          open_service=open_service)\n"
            f"    async with Client(server) as client:\n"
            f"        tools = (await client.list_tools()).tools\n"
            f"        loaded.extend(m for m in {list(SERVICE)!r} if m in sys.modules)\n"
            f"        gate.set()\n"
            f"        assert not (await client.call_tool('memory_status', {{}})).is_error\n"
            f"    print(json.dumps([len(tools), loaded]))\n"
            f"anyio.run(main)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    tools, loaded = json.loads(done.stdout.splitlines()[-1])
    assert tools > 20 and loaded == []


def test_the_tool_modules_import_no_part_of_the_service_that_opens_the_store():
    code = ("import graphmem.server.app, graphmem.server.opening, graphmem.server.profiles\n"
            "from graphmem.server.profiles import FULL")
    probe = (f"import sys, json\n{code}\nprint(json.dumps([m for m in {list(SERVICE)!r} if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == []


# What each command that parses no text must not import (docs/benchmarks.md, issue 22). show reads one memory's
# rows (its concepts too: no projection is in memory), sessions its rows and their decay scores (numpy), the JSONL
# export its rows; stats counts the graph (the projection: numpy, scipy.sparse; networkx for its communities) but
# recalls nothing, and scipy's graph routines (scipy.sparse.csgraph, which loads scipy.linalg) are for large stores.
# None of them parses text: spaCy and the embedding model (the tokenizers package, its loading thread) stay out.
TEXT = ("spacy", "tokenizers", "graphmem-embedder thread")
RECALL = ("graphmem.service.recall.engine", "graphmem.core.activation", "graphmem.service.recall.service",
          "scipy.sparse.csgraph")
PROJECTION = ("numpy", "scipy", "graphmem.store.projection")
UNUSED = {
    "show": (*TEXT, *RECALL, *PROJECTION, "networkx", "graphmem.service.lifecycle.service",
             "graphmem.service.export.service"),
    "sessions": (*TEXT, *RECALL, "scipy", "graphmem.store.projection", "networkx", "graphmem.service.export.service"),
    "export": (*TEXT, *RECALL, *PROJECTION, "networkx", "graphmem.service.lifecycle.service",
               "graphmem.service.export.service"),
    "stats": (*TEXT, *RECALL, "graphmem.service.lifecycle.service", "graphmem.service.export.graph_build"),
    "export --format node-link": (*TEXT, "scipy.sparse.csgraph", "graphmem.service.lifecycle.service"),
}
# What each must load after all, so the probe above is known to see what a command imports.
USED = {"show": (), "sessions": ("numpy",), "export": (), "stats": (*PROJECTION, "networkx"),
        "export --format node-link": (*PROJECTION, "networkx", "graphmem.service.recall.engine")}


def test_the_commands_that_parse_no_text_load_only_what_they_use(tmp_path):
    # show / stats / sessions / export of a small store finish in under a second only without what they do not
    # use: spaCy (1.6 s), the embedder (0.35 s, on a thread the process waited for at exit), the recall engine and
    # the projection (numpy, scipy), networkx.
    db = str(tmp_path / "memory.db")
    stored = subprocess.run([sys.executable, "-m", "graphmem.cli", "--db", db, "--create", "--json", "store",
                             "Canary deploys use the flamingo feature flag service"],
                            capture_output=True, text=True, timeout=120, check=True)
    memory_id = json.loads(stored.stdout)["id"]
    watched = sorted({name for names in (*UNUSED.values(), *USED.values()) for name in names})
    for name, unused in UNUSED.items():
        command = [*name.split(), *([memory_id] if name == "show" else [])]
        code = ("import contextlib, io, json, sys, threading\nfrom graphmem.cli import main\n"
                "with contextlib.redirect_stdout(io.StringIO()):\n"
                f"    status = main(['--db', {db!r}, *{command!r}])\n"
                "loaded = {*sys.modules, *(t.name + ' thread' for t in threading.enumerate())}\n"
                f"print(json.dumps([status, [m for m in {watched!r} if m in loaded]]))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
        status, loaded = json.loads(done.stdout.splitlines()[-1])
        assert status == 0, name
        assert [m for m in unused if m in loaded] == [], name
        assert [m for m in USED[name] if m not in loaded] == [], name
