"""inspect() answers what `idforge inspect --json` prints; errors carry the CLI's message."""

import json

import pytest

import idforge
from conftest import run_cli


@pytest.mark.parametrize("make", [lambda: idforge.uuid7_str(), lambda: idforge.ulid(),
                                  lambda: idforge.uuid4_str(),
                                  lambda: str(idforge.Snowflake(node=5).next())])
def test_inspect_equals_the_cli(cli, make):
    text = make()
    got = idforge.inspect(text)
    done = run_cli(cli, "inspect", "--json", text)
    assert done.returncode == 0, done.stderr
    assert got == json.loads(done.stdout)


def test_inspect_takes_an_int_snowflake_under_a_layout():
    s = idforge.Snowflake("discord", node=3)
    d = idforge.inspect(s.next(), layout="discord")
    assert d["kind"] == "snowflake" and d["node"] == 3 and "warning" in d


def test_inspect_error_carries_the_cli_message(cli):
    with pytest.raises(idforge.ParseError) as e:
        idforge.inspect("not-an-id")
    done = run_cli(cli, "inspect", "not-an-id")
    assert done.returncode == 1
    assert str(e.value) in done.stderr


def test_inspect_rejects_other_types():
    with pytest.raises(TypeError):
        idforge.inspect(1.5)


def test_text_with_no_utf8_form_is_a_typed_error():
    # A lone surrogate used to surface as a bare RuntimeError or UnicodeEncodeError.
    for call in (lambda: idforge.inspect("12\ud800"), lambda: idforge.parse_uuid("\udcff" * 36),
                 lambda: idforge.parse_ulid("\ud800" * 26)):
        with pytest.raises(idforge.ParseError, match="lone surrogate"):
            call()
    with pytest.raises(idforge.InvalidArgumentError, match="lone surrogate"):
        idforge.Snowflake("twitter\ud800", node=1)
    with pytest.raises(idforge.InvalidArgumentError, match="lone surrogate"):
        idforge.Snowflake(lease_store="file:/tmp/\ud800")


def test_control_characters_in_an_id_are_shown_escaped():
    with pytest.raises(idforge.ParseError) as e:
        idforge.inspect("ab\x1b[31m\n\x07\xff")
    message = str(e.value)
    assert "'ab\\x1b[31m\\n\\x07" in message, message
    assert not any(ord(c) < 0x20 for c in message), message
