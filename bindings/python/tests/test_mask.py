"""MaskKeyring: public IDs that leak nothing. The known answers of the core
(tests/core/mask_vectors_test.cpp) through the package, rotation, every way a key, an ID or an
argument can be wrong (typed errors with .code, messages that never show a secret), and one
keyring shared by threads."""

import os
import re
import threading
import uuid

import pytest

import idforge

from conftest import run_cli

# The public test keys of tests/core/mask_support.hpp (never use them anywhere else).
COUNTING = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
DESCENDING = "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0"
V7 = uuid.UUID("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
V4 = uuid.UUID("919108f7-52d1-4320-9bac-f847db4148a8")


@pytest.fixture
def kr():
    return idforge.MaskKeyring.from_text(f"1:{COUNTING}")


@pytest.fixture
def no_mask_env(monkeypatch):
    monkeypatch.delenv("IDFORGE_MASK_KEY_FILE", raising=False)
    monkeypatch.delenv("IDFORGE_MASK_KEYS", raising=False)


def test_known_answers_u63(kr):
    assert kr.mask(4001) == "MddbJ9eWq3n1mGH2"
    assert kr.mask(4001, alphabet="base62") == "AaZtQ4anDKrkd562"
    assert kr.mask(4001, form="raw") == 8888165847862036857
    assert kr.mask(2**63 - 1, form="raw", mode="u63") == 970847276949345342
    assert kr.unmask("MddbJ9eWq3n1mGH2") == 4001
    assert kr.unmask("AaZtQ4anDKrkd562", alphabet="base62") == 4001
    assert kr.unmask(8888165847862036857) == 4001


def test_known_answers_uuids(kr):
    assert kr.mask(V7) == "2Z1WBwQe58xTLy7NrhuepCgabz"
    masked = kr.mask(V7, form="raw")
    assert masked == uuid.UUID("0dde117f-3573-4008-bf85-de15727c4cd1")
    assert masked.version == 4 and masked.variant == uuid.RFC_4122
    assert kr.unmask(masked) == V7
    assert kr.unmask("2Z1WBwQe58xTLy7NrhuepCgabz") == V7
    assert kr.mask(V7, mode="u128") == "YHTGk5gzei7o2jitbPFkwgR412g"
    assert kr.mask(V7, mode="u128", form="raw") == uuid.UUID("fd57639d-7de2-5d5b-80e6-ecc65a67977f")
    assert kr.unmask(uuid.UUID("fd57639d-7de2-5d5b-80e6-ecc65a67977f"), mode="u128") == V7
    # auto: a UUID that is not a v7 is u128
    assert kr.mask(V4, form="raw") == uuid.UUID("5986d403-d9b8-3300-706a-f85f5e1de524")
    assert kr.unmask("C4CUYKbZk3ihEKJB8dtJPmramnR") == V4


def test_results_have_the_types_of_the_inputs(kr):
    assert isinstance(kr.mask(5, form="raw"), int)
    assert isinstance(kr.unmask(kr.mask(5)), int)
    assert isinstance(kr.mask(V7, form="raw"), uuid.UUID)
    assert isinstance(kr.unmask(kr.mask(V4)), uuid.UUID)
    assert kr.read_public_id("2Z1WBwQe58xTLy7NrhuepCgabz") == {"mode": "v7", "key_id": 1, "value": V7}
    assert kr.read_public_id("AaZtQ4anDKrkd562", alphabet="base62") == {
        "mode": "u63", "key_id": 1, "value": 4001}


def test_round_trips(kr):
    for n in (1, 2, 3, 4001, 2**32, 2**62, 2**63 - 1):
        assert kr.unmask(kr.mask(n)) == n
        assert kr.unmask(kr.mask(n, form="raw")) == n
        assert 1 <= kr.mask(n, form="raw") <= 2**63 - 1
    for _ in range(200):
        v7, v4 = idforge.uuid7(), idforge.uuid4()
        assert kr.unmask(kr.mask(v7)) == v7
        assert kr.unmask(kr.mask(v4)) == v4
        assert kr.unmask(kr.mask(v4, form="raw"), mode="u128") == v4
        assert kr.mask(v7, form="raw").version == 4


def test_the_same_answers_as_the_cli(kr, cli, tmp_path):
    keys = tmp_path / "mask.keys"
    keys.write_text(f"1:{COUNTING}\n")
    values = ["4001", "1541815603606036480", str(V7), str(V4)]
    r = run_cli(cli, "mask", *values, "--key-file", str(keys))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [kr.mask(int(values[0])), kr.mask(int(values[1])), kr.mask(V7),
                                kr.mask(V4)]
    r = run_cli(cli, "mask", *values, "--form", "raw", "--alphabet", "base62", "--key-file", str(keys))
    assert r.stdout.split() == [str(kr.mask(4001, form="raw")),
                                str(kr.mask(1541815603606036480, form="raw")),
                                str(kr.mask(V7, form="raw")), str(kr.mask(V4, form="raw"))]


def test_rotation_old_public_ids_still_resolve():
    old = idforge.MaskKeyring.from_text(f"1:{COUNTING}")
    rotated = idforge.MaskKeyring.from_text(f"2:{DESCENDING}\n1:{COUNTING}  # retired\n")
    assert rotated.key_ids == [2, 1] and rotated.primary_key_id == 2
    old_id, new_id = old.mask(4001), rotated.mask(4001)
    assert old_id != new_id
    assert rotated.unmask(old_id) == 4001
    assert rotated.unmask(new_id) == 4001
    assert rotated.read_public_id(old_id)["key_id"] == 1
    assert rotated.read_public_id(new_id)["key_id"] == 2
    assert rotated.mask(4001, key_id=1) == old_id
    # raw values carry no key ID: the old key is named
    raw = old.mask(4001, form="raw")
    assert rotated.unmask(raw, key_id=1) == 4001
    assert rotated.unmask(raw) != 4001
    # dropping the old key: its IDs no longer resolve
    with pytest.raises(idforge.MaskKeyError, match="names mask key 1.*it holds 2") as e:
        idforge.MaskKeyring.from_text(f"2:{DESCENDING}").unmask(old_id)
    assert e.value.code == "key_error"


def test_a_wrong_key_is_not_ours():
    made = idforge.MaskKeyring.from_text(f"1:{COUNTING}").mask(4001)
    other = idforge.MaskKeyring.from_text(f"1:{DESCENDING}")
    with pytest.raises(idforge.NotOursError, match="keyed check does not match") as e:
        other.unmask(made)
    assert e.value.code == "not_ours"
    assert isinstance(e.value, idforge.InvalidArgumentError) and isinstance(e.value, ValueError)
    assert DESCENDING not in str(e.value) and COUNTING not in str(e.value)


def test_mistyped_public_ids_are_parse_errors(kr):
    good = kr.mask(4001)
    typo = good[:4] + ("K" if good[4] != "K" else "L") + good[5:]
    swapped = good[:6] + good[7] + good[6] + good[8:]
    assert swapped != good
    for bad in (typo, swapped):
        with pytest.raises(idforge.ParseError, match="mistyped") as e:
            kr.unmask(bad)
        assert e.value.code == "parse_error"
    with pytest.raises(idforge.ParseError, match="15 characters"):
        kr.unmask(good[:-1])
    with pytest.raises(idforge.ParseError, match="'0' is not a base58 character"):
        kr.unmask("0" + good[1:])


def test_text_that_is_not_a_public_id(kr):
    good = kr.mask(4001)
    # a NUL is a character outside the alphabet, shown escaped (never cutting the message)
    with pytest.raises(idforge.ParseError, match=r"'\\x00' is not a base58 character"):
        kr.unmask(good[:3] + "\0" + good[4:])
    # non-ASCII text: the first byte of its UTF-8 form is named, escaped
    with pytest.raises(idforge.ParseError, match=r"position 14: '\\xc3' is not"):
        kr.unmask(good[:14] + "é")
    # a lone surrogate (what surrogateescape makes of bytes that are not UTF-8) has no UTF-8
    with pytest.raises(idforge.ParseError, match="lone surrogate"):
        kr.unmask(good[:15] + "\udcff")
    with pytest.raises(TypeError):
        kr.unmask(good.encode())
    with pytest.raises(TypeError):
        kr.read_public_id(good.encode())


@pytest.mark.parametrize("value", [0, -1, 2**63, 2**64, -(10**5000)],
                         ids=["0", "-1", "2**63", "2**64", "-10**5000"])
def test_values_outside_u63_are_refused(kr, value):
    for call in (lambda: kr.mask(value), lambda: kr.mask(value, form="raw"),
                 lambda: kr.unmask(value)):
        with pytest.raises(idforge.InvalidArgumentError, match=r"1\.\.2\*\*63-1") as e:
            call()
        assert e.value.code == "invalid_argument"
        assert len(str(e.value)) < 300


def test_modes_must_suit_the_value(kr):
    with pytest.raises(idforge.InvalidArgumentError, match="mode 'v7' takes a uuid.UUID"):
        kr.mask(5, mode="v7")
    with pytest.raises(idforge.InvalidArgumentError, match="mode 'u63' takes an int"):
        kr.mask(V7, mode="u63")
    with pytest.raises(idforge.InvalidArgumentError, match="is not a UUIDv7"):
        kr.mask(V4, mode="v7")
    with pytest.raises(idforge.InvalidArgumentError, match="is not a UUIDv4"):
        kr.unmask(V7, mode="v7")
    with pytest.raises(idforge.InvalidArgumentError, match="is of mode u63, not v7"):
        kr.unmask(kr.mask(5), mode="v7")
    with pytest.raises(idforge.MaskKeyError, match="made with mask key 1, not 3"):
        kr.unmask(kr.mask(5), key_id=3)
    assert kr.unmask(kr.mask(5), mode="u63", key_id=1) == 5


@pytest.mark.parametrize("call, cls, says", [
    (lambda k: k.mask(5, mode="u64"), idforge.InvalidArgumentError, "mode 'u64'"),
    (lambda k: k.mask(5, form="short"), idforge.InvalidArgumentError, "form 'short'"),
    (lambda k: k.mask(5, alphabet="base64"), idforge.InvalidArgumentError, "alphabet 'base64'"),
    (lambda k: k.unmask("x", alphabet="base32"), idforge.InvalidArgumentError, "alphabet 'base32'"),
    (lambda k: k.mask(5, key_id=-1), idforge.InvalidArgumentError, "key_id -1"),
    (lambda k: k.mask(5, key_id=9), idforge.MaskKeyError, "mask key 9 is not in the keyring"),
    (lambda k: k.unmask(5, key_id=58), idforge.MaskKeyError, "mask key 58 is not in the keyring"),
])
def test_bad_options_are_typed_errors_naming_the_value(kr, call, cls, says):
    with pytest.raises(cls, match=says):
        call(kr)


@pytest.mark.parametrize("call", [
    lambda k: k.mask("4001"),
    lambda k: k.mask(b"4001"),
    lambda k: k.mask(True),
    lambda k: k.mask(4001.0),
    lambda k: k.mask(str(V7)),
    lambda k: k.mask(5, mode=1),
    lambda k: k.mask(5, key_id=True),
    lambda k: k.mask(5, "u63"),
    lambda k: k.mask(),
    lambda k: k.mask(5, shape="raw"),
    lambda k: k.unmask(5, form="public"),
    lambda k: k.unmask("x", form="raw"),
    lambda k: k.unmask(None),
    lambda k: idforge.MaskKeyring(),
    lambda k: idforge.MaskKeyring.from_text(f"1:{COUNTING}".encode()),
])
def test_wrong_types_are_type_errors(kr, call):
    with pytest.raises(TypeError):
        call(kr)


@pytest.mark.parametrize("text, says", [
    (f"1:{COUNTING[:-2]}", "entry 1 (key ID '1'): the secret has 62 characters"),
    (f"1:{COUNTING[:-1]}g", "not a hex digit at position 63"),
    (f"1:{COUNTING},1:{DESCENDING}", "given twice"),
    (f"58:{COUNTING}", "from 0 to 57"),
    (COUNTING, "expected ID:SECRET"),
    (f"{COUNTING}:1", "a key ID of 64 bytes, not shown"),  # written SECRET:ID
    ("4:" + "0" * 64, "all zero bytes"),
    ("# nothing here\n", "no key in it"),
    ("", "no key in it"),
])
def test_bad_keyrings_are_mask_key_errors_that_never_show_a_secret(text, says):
    with pytest.raises(idforge.MaskKeyError, match=re.escape(says)) as e:
        idforge.MaskKeyring.from_text(text)
    assert e.value.code == "key_error"
    assert COUNTING[:40] not in str(e.value) and DESCENDING[:40] not in str(e.value)


def test_a_fifo_as_the_key_file_is_refused_unread(tmp_path):
    fifo = tmp_path / "keys.fifo"
    os.mkfifo(fifo)
    with pytest.raises(idforge.MaskKeyError, match="not a regular file .a FIFO."):
        idforge.MaskKeyring.from_file(fifo)


def test_from_file(tmp_path, kr):
    keys = tmp_path / "mask.keys"
    keys.write_text(f"# test\n1:{COUNTING}\n")
    for path in (str(keys), keys, os.fsencode(keys)):
        assert idforge.MaskKeyring.from_file(path).mask(4001) == kr.mask(4001)
    # a path that is not UTF-8 is passed through as bytes
    odd = tmp_path / os.fsdecode(b"keys-\xff")
    odd.write_text(f"1:{COUNTING}\n")
    assert idforge.MaskKeyring.from_file(os.fsencode(odd)).mask(4001) == kr.mask(4001)
    assert idforge.MaskKeyring.from_file(str(odd)).mask(4001) == kr.mask(4001)
    with pytest.raises(idforge.MaskKeyError, match="nope.keys' cannot be read"):
        idforge.MaskKeyring.from_file(tmp_path / "nope.keys")
    with pytest.raises(idforge.InvalidArgumentError, match="NUL"):
        idforge.MaskKeyring.from_file(str(keys) + "\0x")
    with pytest.raises(TypeError):
        idforge.MaskKeyring.from_file(5)
    keys.write_text(f"1:{DESCENDING[:10]}\n")
    with pytest.raises(idforge.MaskKeyError, match="mask.keys'") as e:
        idforge.MaskKeyring.from_file(keys)
    assert DESCENDING[:10] not in str(e.value)


def test_from_environment(tmp_path, monkeypatch, no_mask_env, kr):
    with pytest.raises(idforge.MaskKeyError, match="no mask key: set IDFORGE_MASK_KEYS"):
        idforge.MaskKeyring.from_environment()
    monkeypatch.setenv("IDFORGE_MASK_KEYS", f"1:{COUNTING}")
    assert idforge.MaskKeyring.from_environment().mask(4001) == kr.mask(4001)
    # a file wins over the entries
    keys = tmp_path / "mask.keys"
    keys.write_text(f"1:{DESCENDING}\n")
    monkeypatch.setenv("IDFORGE_MASK_KEY_FILE", str(keys))
    assert idforge.MaskKeyring.from_environment().mask(4001) != kr.mask(4001)
    monkeypatch.delenv("IDFORGE_MASK_KEY_FILE")
    monkeypatch.setenv("IDFORGE_MASK_KEYS", f"1:{COUNTING}zz")
    with pytest.raises(idforge.MaskKeyError, match="IDFORGE_MASK_KEYS: entry 1") as e:
        idforge.MaskKeyring.from_environment()
    assert COUNTING not in str(e.value)


def test_new_mask_key():
    a, b = idforge.new_mask_key(7), idforge.new_mask_key(7)
    assert a != b
    key_id, secret = a.split(":")
    assert key_id == "7" and len(secret) == 64 and int(secret, 16) >= 0
    assert idforge.MaskKeyring.from_text(a).key_ids == [7]
    with pytest.raises(idforge.InvalidArgumentError, match="58"):
        idforge.new_mask_key(58)
    with pytest.raises(TypeError):
        idforge.new_mask_key("7")


def test_repr_shows_key_ids_not_secrets(kr):
    assert repr(kr) == "<idforge.MaskKeyring key IDs [1]>"


def test_one_keyring_serves_many_threads():
    kr = idforge.MaskKeyring.from_text(f"2:{DESCENDING} 1:{COUNTING}")
    expected = {n: kr.mask(n) for n in range(1, 2001)}
    seen, errors = [], []

    def work(offset):
        try:
            got = {}
            for n in range(1, 2001):
                pub = kr.mask(n)
                if kr.unmask(pub) != n or kr.unmask(kr.mask(n, form="raw")) != n:
                    errors.append(n)
                got[n] = pub
            seen.append(got)
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(got == expected for got in seen) and len(seen) == 8
