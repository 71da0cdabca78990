"""Arguments that break a rule raise idforge's typed errors with .code and a message naming
the value; wrong types raise TypeError; a NUL byte never cuts a string short."""

import pytest

import idforge


@pytest.mark.parametrize("call", [
    lambda: idforge.Snowflake("discord\x00 ignored", node=1),
    lambda: idforge.decompose(1, "twitter\x00x"),
    lambda: idforge.compose(0, 0, 0, "twitter\x00x"),
])
def test_a_nul_in_a_layout_is_refused(call):
    with pytest.raises(idforge.InvalidArgumentError, match=r"layout .*NUL") as e:
        call()
    assert e.value.code == "invalid_argument"


def test_a_nul_in_a_lease_store_is_refused(lease_dir):
    with pytest.raises(idforge.InvalidArgumentError, match=r"lease_store .*NUL"):
        idforge.Snowflake(lease_store=f"file:{lease_dir}/LN\x00?nodes=1&bogus=1")


@pytest.mark.parametrize("call", [
    lambda: idforge.inspect("123\x00garbage"),
    lambda: idforge.parse_uuid("123\x00garbage"),
    lambda: idforge.parse_ulid("123\x00garbage"),
])
def test_a_nul_in_an_id_is_a_parse_error_showing_all_of_it(call):
    with pytest.raises(idforge.ParseError, match=r"garbage") as e:
        call()
    assert e.value.code == "parse_error"


@pytest.mark.parametrize("call, cls, code, value", [
    (lambda: idforge.Snowflake(node=1).next_batch(-1), idforge.InvalidArgumentError, "invalid_argument", "-1"),
    (lambda: idforge.Snowflake(node=-1), idforge.NodeOutOfRangeError, "node_out_of_range", "-1"),
    (lambda: idforge.Snowflake(node=2**63), idforge.NodeOutOfRangeError, "node_out_of_range", str(2**63)),
    (lambda: idforge.Snowflake(node=1).rebind(2**63), idforge.NodeOutOfRangeError, "node_out_of_range", str(2**63)),
    (lambda: idforge.decompose(-1), idforge.InvalidArgumentError, "invalid_argument", "-1"),
    (lambda: idforge.decompose(2**64), idforge.InvalidArgumentError, "invalid_argument", str(2**64)),
    (lambda: idforge.compose(-1, 0, 0), idforge.InvalidArgumentError, "invalid_argument", "tick -1"),
])
def test_values_out_of_range_are_typed_and_coded(call, cls, code, value):
    with pytest.raises(cls, match=value) as e:
        call()
    assert e.value.code == code


@pytest.mark.parametrize("call", [
    lambda: idforge.Snowflake(b"twitter", node=1),
    lambda: idforge.Snowflake(node=True),
    lambda: idforge.Snowflake(node=1.0),
    lambda: idforge.Snowflake(lease_store=b"file:/tmp"),
    lambda: idforge.decompose(1, b"twitter"),
    lambda: idforge.decompose(True),
    lambda: idforge.parse_uuid(b"0" * 32),
    lambda: idforge.parse_ulid(b"0" * 26),
    lambda: idforge.Snowflake(node=1).next_batch(True),
])
def test_wrong_types_are_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_every_use_of_a_closed_generator_raises_with_code_closed():
    s = idforge.Snowflake(node=1)
    s.close()
    s.close()  # closing twice is allowed
    for call in (s.next, lambda: s.next_batch(1), lambda: s.node, lambda: s.layout,
                 s.release, lambda: s.rebind(2), s.__enter__):
        with pytest.raises(idforge.InvalidArgumentError, match="closed") as e:
            call()
        assert e.value.code == "closed"


def test_messages_echo_a_bounded_piece_of_a_huge_input():
    with pytest.raises(idforge.InvalidArgumentError) as e:
        idforge.Snowflake("x" * 1_000_000 + "\x00", node=1)
    assert len(str(e.value)) < 300
    with pytest.raises(idforge.ParseError) as e:
        idforge.parse_uuid("1" * 1_000_000 + "\x00")
    assert len(str(e.value)) < 300
    with pytest.raises(idforge.InvalidArgumentError) as e:
        idforge.decompose(-(10 ** 5000))
    assert len(str(e.value)) < 300
