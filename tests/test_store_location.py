"""Where the store lives (docs/configuration.md): named, else the nearest project store, else the user's."""

from __future__ import annotations

import json
import os

import pytest

from graphmem.cli import main
from graphmem.settings import Settings, find_store, init_location, store_location


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> None:
    for name in [n for n in os.environ if n.startswith("GRAPHMEM_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")


def test_a_named_store_wins_and_keeps_its_spelling(tmp_path):
    location = store_location(Settings.load(db="postgresql+psycopg://me:secret@host/db", environ={}))
    assert location.source == "explicit" and location.path is None
    assert location.shown() == "postgresql+psycopg://me:***@host/db"


def test_the_nearest_graphmem_folder_up_the_tree_is_the_project_store(tmp_path):
    (tmp_path / ".graphmem").mkdir()
    nested = tmp_path / "work" / "a" / "b"
    nested.mkdir(parents=True)
    assert find_store(nested) == find_store(tmp_path)
    assert find_store(nested).db == str(tmp_path / ".graphmem" / "memory.db")


def test_with_no_project_store_the_fallback_is_the_per_user_data_directory(tmp_path):
    location = find_store(tmp_path / "work", environ={"XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert (location.source, location.db) == ("user", str(tmp_path / "xdg" / "graphmem" / "memory.db"))


def test_init_creates_the_store_at_the_git_root(tmp_path, capsys):
    (tmp_path / "work" / ".git").mkdir()
    (tmp_path / "work" / "pkg").mkdir()
    os.chdir(tmp_path / "work" / "pkg")
    assert init_location() == tmp_path / "work" / ".graphmem" / "memory.db"
    assert main(["--json", "init"]) == 0
    assert json.loads(capsys.readouterr().out)["created"]
    assert (tmp_path / "work" / ".graphmem" / "memory.db").is_file()
    assert main(["--json", "stats"]) == 0  # found from the subdirectory, as the project store
    assert f"store {tmp_path / 'work' / '.graphmem' / 'memory.db'} (project)" in capsys.readouterr().err


def test_a_missing_store_is_an_error_naming_it_and_nothing_is_created(tmp_path, capsys):
    missing = tmp_path / "nonexistent" / "dir" / "x.db"
    assert main(["--db", str(missing), "stats"]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "does not exist" in err and "graphmem" in err and "init" in err
    assert not (tmp_path / "nonexistent").exists()
    assert main(["--db", str(tmp_path / "x.db"), "stats"]) == 2  # the folder exists, the store does not
    assert not (tmp_path / "x.db").exists()


def test_create_makes_a_named_store_and_every_command_names_its_store_on_stderr(tmp_path, capsys):
    db = tmp_path / "new" / "memory.db"
    assert main(["--db", str(db), "--create", "--json", "stats"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["database"] == str(db)
    assert captured.err == f"graphmem: created store {db} (explicit)\n"
    assert main(["--db", str(db), "stats"]) == 0
    assert capsys.readouterr().err == f"graphmem: using store {db} (explicit)\n"


def test_the_per_user_store_is_created_on_first_use(tmp_path, capsys):
    assert main(["--json", "stats"]) == 0
    assert (tmp_path / "xdg" / "graphmem" / "memory.db").is_file()
    assert "(user)" in capsys.readouterr().err


def test_a_relative_store_path_is_reported_in_full(tmp_path, capsys):
    assert main(["--db", "rel.db", "--create", "--json", "stats"]) == 0
    assert json.loads(capsys.readouterr().out)["database"] == str(tmp_path / "work" / "rel.db")


def test_a_sqlite_url_follows_the_path_rule_and_is_never_created_silently(tmp_path, capsys):
    store = tmp_path / "url.db"
    assert main(["--db", f"sqlite:///{store}", "stats"]) == 2
    assert f"no graphmem store at {store}" in capsys.readouterr().err
    assert not store.exists()
    assert main(["--db", f"sqlite:///{store}", "--create", "stats"]) == 0
    assert store.is_file() and f"created store sqlite:///{store} (explicit)" in capsys.readouterr().err


def test_an_unsupported_database_url_is_one_line_and_exit_2(capsys):
    assert main(["--db", "mysql://me@db.internal/memory", "stats"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["error: unsupported database URL mysql://me@db.internal/memory: graphmem stores in SQLite "
                   "(a path, or sqlite:///path) or PostgreSQL (postgresql+psycopg://user@host/db)"]


def test_graphmem_toml_is_found_by_the_rule_that_finds_the_project_store(tmp_path):
    project = tmp_path / "work"
    (project / ".graphmem").mkdir()
    (project / "graphmem.toml").write_text('tools = "full"\n', encoding="utf-8")
    (project / "src" / "deep").mkdir(parents=True)
    os.chdir(project / "src" / "deep")
    assert Settings.load(environ={}).tools == "full"
    (tmp_path / "graphmem.toml").write_text('tools = "kyew"\n', encoding="utf-8")  # above the project: not read
    (project / "graphmem.toml").unlink()
    assert Settings.load(environ={}).tools == "core"


def test_init_makes_the_project_store_ignore_itself_in_git_and_says_so(tmp_path, capsys):
    (tmp_path / "work" / ".git").mkdir()
    assert main(["init"]) == 0
    captured = capsys.readouterr()
    store = tmp_path / "work" / ".graphmem"
    assert (store / ".gitignore").read_text(encoding="utf-8") == "*\n"
    assert f"created store {store / 'memory.db'} (project)" in captured.err
    assert ".gitignore" in captured.out and "graphmem export" in captured.out
    assert main(["init"]) == 0
    assert capsys.readouterr().out.startswith(f"already a store: {store / 'memory.db'}")


@pytest.mark.postgres
def test_init_on_an_empty_postgresql_database_creates_the_store_and_other_commands_ask_for_it(pg_url, capsys):
    assert main(["--db", pg_url, "stats"]) == 2
    assert f"graphmem --db {pg_url} init" in capsys.readouterr().err
    assert main(["--db", pg_url, "--json", "init"]) == 0
    assert json.loads(capsys.readouterr().out)["created"] is True
    assert main(["--db", pg_url, "--json", "init"]) == 0
    assert json.loads(capsys.readouterr().out)["created"] is False
    assert main(["--db", pg_url, "stats"]) == 0
