"""Configuration errors are one readable line naming the variable, never a traceback."""

from __future__ import annotations

import pytest

from graphmem.cli import main
from graphmem.errors import InvalidInput
from graphmem.settings import Settings


def test_environment_values_are_read_into_nested_settings():
    settings = Settings.load(environ={"GRAPHMEM_ACTIVATION__HOPS": "2", "GRAPHMEM_DB": "x.db"})
    assert settings.activation.hops == 2 and settings.db == "x.db"


@pytest.mark.parametrize(("environ", "named"), [
    ({"GRAPHMEM_ACTIVATION__ALPHA": "2"}, "GRAPHMEM_ACTIVATION__ALPHA"),
    ({"GRAPHMEM_BOGUS": "1"}, "GRAPHMEM_BOGUS"),
])
def test_a_bad_setting_is_refused_with_its_name(environ, named):
    with pytest.raises(InvalidInput, match=named):
        Settings.load(environ=environ)


def test_a_broken_toml_file_is_refused_with_its_path(tmp_path):
    config = tmp_path / "graphmem.toml"
    config.write_text("[activation\nalpha = 0.5\n")
    with pytest.raises(InvalidInput, match=r"graphmem\.toml"):
        Settings.load(config_file=config, environ={})


def test_the_cli_prints_one_line_and_exits_2_on_bad_configuration(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GRAPHMEM_ACTIVATION__HOPS", "many")
    assert main(["--db", str(tmp_path / "m.db"), "stats"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid configuration: GRAPHMEM_ACTIVATION__HOPS") and "Traceback" not in err
