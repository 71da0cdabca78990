"""Keyword options refused in the library's words: a name Snowflake(), mask(), unmask() or
read_public_id() does not take is an UnknownOptionError (an InvalidArgumentError and a
TypeError) from idforge_check_option, naming the call, the name and the options taken, never
ignored; the explicit keywords stay in the signatures."""

import inspect

import pytest

import idforge

COUNTING = bytes(range(32)).hex()


@pytest.fixture
def kr():
    return idforge.MaskKeyring.from_text(f"1:{COUNTING}")


def test_the_error_class_is_an_invalid_argument_and_a_type_error():
    assert issubclass(idforge.UnknownOptionError, idforge.InvalidArgumentError)
    assert issubclass(idforge.UnknownOptionError, TypeError)
    assert "UnknownOptionError" in idforge.__all__


@pytest.mark.parametrize("call, says", [
    (lambda k: idforge.Snowflake(node=1, leaseStore="file:/tmp/x"),
     "Snowflake(): unknown option 'leaseStore': it takes layout, node, lease_store "
     "(did you mean 'lease_store'?)"),
    (lambda k: idforge.Snowflake(node=1, nodes=4),
     "Snowflake(): unknown option 'nodes': it takes layout, node, lease_store"),
    (lambda k: k.mask(5, keyId=1),
     "mask(): unknown option 'keyId': it takes mode, form, alphabet, key_id "
     "(did you mean 'key_id'?)"),
    (lambda k: k.mask(5, shape="raw"),
     "mask(): unknown option 'shape': it takes mode, form, alphabet, key_id"),
    (lambda k: k.unmask("x", keyId=1),
     "unmask(): unknown option 'keyId': it takes mode, form, alphabet, key_id "
     "(did you mean 'key_id'?)"),
    (lambda k: k.read_public_id("x", form="raw"),
     "read_public_id(): unknown option 'form': it takes mode, alphabet, key_id"),
    (lambda k: k.read_public_id("x", keyId=1),
     "read_public_id(): unknown option 'keyId': it takes mode, alphabet, key_id "
     "(did you mean 'key_id'?)"),
])
def test_an_unknown_keyword_is_refused_naming_it_and_the_options(kr, call, says):
    with pytest.raises(idforge.UnknownOptionError) as e:
        call(kr)
    assert str(e.value) == says
    assert e.value.code == "invalid_argument"


def test_the_refusal_comes_before_the_other_arguments_are_read(kr, lease_dir):
    # a misspelt lease store would otherwise be dropped and the node left unregistered
    with pytest.raises(idforge.UnknownOptionError, match="lease_store"):
        idforge.Snowflake(b"not even a str", node=-5, leaseStore="file:" + lease_dir)
    with pytest.raises(idforge.UnknownOptionError):
        kr.mask("not a value", mode="u999", keyId=1)


def test_a_name_is_quoted_as_the_library_quotes_text():
    with pytest.raises(idforge.UnknownOptionError) as e:
        idforge.Snowflake(node=1, **{"x\x1b[31m\u202e": 1})
    assert "'x\\x1b[31m\\u202e'" in str(e.value)
    with pytest.raises(idforge.UnknownOptionError) as e:
        idforge.Snowflake(node=1, **{"y" * 10_000: 1})
    assert "..." in str(e.value) and len(str(e.value)) < 400
    with pytest.raises(idforge.UnknownOptionError, match=r"'\\udcff'"):
        idforge.Snowflake(node=1, **{"\udcff": 1})  # a lone surrogate: no UTF-8 form


def test_signatures_keep_the_explicit_keywords():
    doc = idforge.Snowflake.__init__.__doc__
    assert "layout: object = 'twitter', *, node: object = None, lease_store: object = None" in doc
    assert str(inspect.signature(idforge.MaskKeyring.mask)) == (
        "(self, value, /, *, mode='auto', form='public', alphabet='base58', key_id=None)")
    assert str(inspect.signature(idforge.MaskKeyring.unmask)) == (
        "(self, value, /, *, mode='auto', form=None, alphabet='base58', key_id=None)")
    assert "mode: object = 'auto', alphabet: object = 'base58', key_id: object = None" in (
        idforge.MaskKeyring.read_public_id.__doc__)
    assert str(inspect.signature(idforge.Snowflake.next)) == "(self, /)"


def test_every_option_the_library_names_is_taken(kr, lease_dir):
    with idforge.Snowflake(layout="twitter", node=3, lease_store="file:" + lease_dir) as s:
        assert s.node == 3
    pub = kr.mask(4001, mode="u63", form="public", alphabet="base62", key_id=1)
    assert kr.unmask(pub, mode="u63", form="public", alphabet="base62", key_id=1) == 4001
    raw = kr.mask(4001, form="raw")
    assert kr.unmask(raw, form="raw") == 4001
    assert kr.read_public_id(pub, mode="u63", alphabet="base62", key_id=1) == {
        "mode": "u63", "key_id": 1, "value": 4001}


def test_unmask_form_says_which_value_it_must_be(kr):
    with pytest.raises(TypeError, match="form='public' reads a public ID, a str, not int"):
        kr.unmask(5, form="public")
    with pytest.raises(TypeError, match="form='raw' takes a masked int or uuid.UUID, not str"):
        kr.unmask(kr.mask(5), form="raw")
    with pytest.raises(idforge.InvalidArgumentError, match="form 'short'"):
        kr.unmask(5, form="short")


def test_read_public_id_checks_mode_and_key_as_unmask_does(kr):
    pub = kr.mask(5)
    with pytest.raises(idforge.InvalidArgumentError, match="is of mode u63, not v7"):
        kr.read_public_id(pub, mode="v7")
    with pytest.raises(idforge.MaskKeyError, match="made with mask key 1, not 3"):
        kr.read_public_id(pub, key_id=3)
