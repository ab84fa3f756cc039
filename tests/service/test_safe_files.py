"""Confined writes: no link is followed (symbolic or hard), NUL bytes and escapes get readable errors."""

from __future__ import annotations

import os

import pytest

from graphmem.errors import InvalidInput
from graphmem.service.safe_files import read_confined, write_confined
from tests.conftest import WEBHOOK
from tests.service.test_lifecycle import make, used_over_days


def test_writes_text_atomically_and_creates_folders(tmp_path):
    path = write_confined(tmp_path, "notes/deep/AGENTS.md", "hello\n")
    assert path == tmp_path / "notes" / "deep" / "AGENTS.md" and path.read_text() == "hello\n"
    write_confined(tmp_path, "notes/deep/AGENTS.md", "again\n")
    assert path.read_text() == "again\n" and [p.name for p in path.parent.iterdir()] == ["AGENTS.md"]


def test_a_hard_link_at_the_target_is_refused_and_the_outside_file_is_untouched(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "secret.txt"
    root.mkdir()
    outside.write_text("keep me")
    os.link(outside, root / "note.md")
    with pytest.raises(InvalidInput, match="hard links"):
        write_confined(root, "note.md", "overwrite")
    assert outside.read_text() == "keep me"


@pytest.mark.parametrize("relative", ["note.md", "dir/note.md"])
def test_symbolic_links_are_refused_for_files_and_folders(tmp_path, relative):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "note.md").write_text("keep me")
    link = root / relative.split("/")[0]
    link.symlink_to(outside / "note.md" if relative == "note.md" else outside)
    with pytest.raises(InvalidInput, match="symbolic link"):
        write_confined(root, relative, "overwrite")
    assert (outside / "note.md").read_text() == "keep me"


@pytest.mark.parametrize("relative", ["../x.md", "/etc/x.md", "a/../../x.md", "a\x00b.md"])
def test_escapes_and_nul_bytes_are_refused_with_a_readable_error(tmp_path, relative):
    with pytest.raises(InvalidInput, match=r"relative|'\.\.'|NUL"):
        write_confined(tmp_path, relative, "x")


def test_promote_refuses_a_hard_linked_note_and_promotes_nothing(tmp_path, new_store, extractor):
    vault, outside = tmp_path / "vault", tmp_path / "passwd"
    vault.mkdir()
    outside.write_text("root:x:0:0")
    service = make(new_store, extractor, lifecycle={"vault_path": str(vault)})
    earned = used_over_days(service, WEBHOOK)
    preview = service.lifecycle.promote(dry_run=True, export=True).items[0]
    os.makedirs(os.path.dirname(preview.vault_path), exist_ok=True)
    os.link(outside, preview.vault_path)
    with pytest.raises(InvalidInput, match="hard links"):
        service.lifecycle.promote(dry_run=False, export=True)
    assert outside.read_text() == "root:x:0:0" and service.open([earned]).memories[0].status == "active"
    service.close()


def test_a_nul_byte_in_the_folder_is_a_readable_error(tmp_path, new_store, extractor):
    (tmp_path / "vault").mkdir()
    service = make(new_store, extractor, lifecycle={"vault_path": str(tmp_path / "vault")})
    used_over_days(service, WEBHOOK)
    with pytest.raises(InvalidInput, match="folder must not contain a NUL"):
        service.lifecycle.promote(dry_run=False, export=True, folder="notes\x00evil")
    service.close()


def test_a_fifo_at_the_target_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "AGENTS.md")
    with pytest.raises(InvalidInput, match="FIFO"):
        write_confined(tmp_path, "AGENTS.md", "x")
    with pytest.raises(InvalidInput, match="FIFO"):
        read_confined(tmp_path, "AGENTS.md")


def test_reading_a_confined_file_gives_its_text_or_nothing_when_missing(tmp_path):
    (tmp_path / "CLAUDE.md").write_text("keep\n")
    assert read_confined(tmp_path, "CLAUDE.md") == "keep\n" and read_confined(tmp_path, "new/AGENTS.md") == ""


def test_a_symlinked_note_inside_the_vault_is_refused_and_its_target_untouched(tmp_path, new_store, extractor):
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.json").write_text("{}")
    service = make(new_store, extractor, lifecycle={"vault_path": str(vault)})
    earned = used_over_days(service, WEBHOOK)
    preview = service.lifecycle.promote(dry_run=True, export=True).items[0]
    os.makedirs(os.path.dirname(preview.vault_path), exist_ok=True)
    os.symlink(vault / ".obsidian" / "app.json", preview.vault_path)
    with pytest.raises(InvalidInput, match="symbolic link"):
        service.lifecycle.promote(dry_run=False, export=True)
    assert (vault / ".obsidian" / "app.json").read_text() == "{}"
    assert service.open([earned]).memories[0].status == "active"
    service.close()


@pytest.mark.parametrize(("relative", "reason"), [
    ("../x.md", "would leave the root"), ("/etc/x.md", "absolute"), ("a\x00b.md", "NUL"), ("", "empty")])
def test_every_path_error_says_why(tmp_path, relative, reason):
    with pytest.raises(InvalidInput, match=reason):
        write_confined(tmp_path, relative, "x")


def test_a_name_too_long_for_the_file_system_is_a_readable_error(tmp_path):
    with pytest.raises(InvalidInput, match="cannot be used"):
        write_confined(tmp_path, "a" * 5_000 + ".md", "x")
    with pytest.raises(InvalidInput, match="cannot be used"):
        read_confined(tmp_path, "d" * 5_000 + "/AGENTS.md")
