"""Every user-supplied text field loses private blocks and secrets before it is parsed or stored."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import inspect, text

from graphmem.errors import InvalidInput, NotFound

AWS = "AKIAIOSFODNN7EXAMPLE"
PG = "postgresql://admin:S3cr3tP4ss@db.internal:5432/app"
HIDDEN = "<private reason='k'>kumquat</private>"


def _database_text(service) -> str:
    """Every text cell of every table, for 'is it anywhere?' checks."""
    with service.engine.connect() as connection:
        tables = [name for name in inspect(connection).get_table_names() if not name.startswith("memory_fts")]
        cells = [json.dumps([list(map(str, row)) for row in connection.execute(text(f'SELECT * FROM "{name}"'))])
                 for name in tables]
    return "\n".join(cells)


def test_store_redacts_secrets_in_every_field_and_reports_kind_and_count(service):
    result = service.store(f"Deploy uses {AWS} and {PG}", project=f"ops {AWS}", topic_key=f"ops/{AWS}",
                           tags=[f"key {AWS}"], entities=[AWS, "deploy pipeline"], source=PG,
                           context=f"password=hunter22 {HIDDEN}",
                           meta={"creds": {"url": PG, AWS: ["ghp_16C7e42F292c6912E7710c838347Ae178B4a"]}})
    assert result.redacted == {"aws-access-key": 6, "github-token": 1, "password": 1, "url-password": 3}
    stored = _database_text(service)
    for secret in (AWS, "S3cr3tP4ss", "hunter22", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "kumquat"):
        assert secret not in stored
    assert "[REDACTED:aws-access-key]" in stored


def test_placeholders_and_secrets_never_become_concepts(service):
    result = service.store(f"Rotate {AWS} and {PG} before the sk-ant-api03-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz launch",
                           entities=[AWS])
    names = " ".join(result.concepts)
    assert "redacted" not in names and "akia" not in names and "s3cr3t" not in names
    assert service.facts.add("deploy", "uses", "rotate key").fact.object == "rotate key"
    with pytest.raises(InvalidInput, match="secret"):
        service.facts.add("deploy", "uses", AWS)


def test_private_blocks_are_stripped_from_every_other_field(service):
    first = service.store("Redis stores sessions", project=f"web{HIDDEN}", topic_key=f"arch/{HIDDEN}redis",
                          tags=[f"cache{HIDDEN}", HIDDEN], entities=[f"redis {HIDDEN}"],
                          meta={f"k{HIDDEN}": f"v {HIDDEN}", "list": [HIDDEN]}).id
    second = service.store("Memcached was considered").id
    service.relations.relate(first, second, "related", reason=f"r {HIDDEN}", evidence=f"e {HIDDEN}",
                             meta={"why": HIDDEN})
    service.facts.add("web", "uses", f"redis {HIDDEN}", reason=f"because {HIDDEN}")
    service.edits.correct(first, "Redis stores sessions for 7 days", reason=f"fix {HIDDEN}")
    service.edits.forget(second, reason=f"gone {HIDDEN}")
    assert "kumquat" not in _database_text(service)
    memory = service.open([first]).memories[0]
    assert memory.project == "web" and memory.tags == ("cache",) and memory.topic_key == "arch/redis"


def test_meta_is_bounded_in_size_and_depth_and_refuses_nan(service):
    with pytest.raises(InvalidInput, match="16,384"):
        service.store("big meta", meta={"blob": "x" * 20_000})
    deep: dict = {}
    node = deep
    for _ in range(40):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(InvalidInput, match="nests deeper"):
        service.store("deep meta", meta=deep)
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(InvalidInput, match="NaN and Infinity"):
            service.store("nan meta", meta={"score": [1, {"x": bad}]})
    with pytest.raises(InvalidInput, match="NaN and Infinity"):
        service.relations.relate(service.store("a").id, service.store("b").id, "related", meta={"x": bad})


def test_an_overlong_id_is_refused_before_lookup_and_errors_quote_little(service):
    huge = "mem_" + "x" * 1_000_000
    for call in (lambda: service.open([huge]), lambda: service.edits.forget(huge),
                 lambda: service.relations.relate(huge, huge, "related"),
                 lambda: service.store("x", kind=huge), lambda: service.store("x", review_after=huge)):
        with pytest.raises((InvalidInput, NotFound)) as caught:
            call()
        assert len(str(caught.value)) < 300


def test_lone_surrogates_are_refused_never_stored_altered(service):
    with pytest.raises(InvalidInput, match="surrogate U\\+D800"):
        service.store("broken \ud800 text")
    with pytest.raises(InvalidInput, match="surrogate"):
        service.store("fine", meta={"k": "\udfff"})
    with pytest.raises(InvalidInput, match="surrogate"):
        service.store("fine", tags=["\ud83d"])
    assert service.status()["memories"] == 0


def test_cli_import_refuses_over_deep_and_nan_lines_by_number_without_a_traceback(settings, tmp_path, capsys):
    from graphmem.cli import main

    deep = '{"content": "x", "meta": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}"
    lines = ['{"content": "fine line"}', deep, '{"content": "y", "meta": {"s": NaN}}',
             '{"content": "z", "meta": ' + '{"a": ' * 30 + "1" + "}" * 30 + "}", '{"content": "\\ud800"}']
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["--db", settings.db, "--create", "import", str(source)]) == 2
    error = capsys.readouterr().err
    assert "Traceback" not in error and "nothing was written" in error
    assert "line 2: nested deeper" in error and "line 3: NaN is not a JSON number" in error
    assert "line 4:" in error and "line 5:" in error and "surrogate" in error
