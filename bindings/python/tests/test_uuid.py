"""UUIDv7, UUIDv4 and ULID from Python: types, versions, order, text forms, parsing."""

import re
import threading
import uuid

import pytest

import idforge

CANONICAL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
ULID = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")


def test_uuid7_is_a_version_7_uuid_UUID():
    u = idforge.uuid7()
    assert type(u) is uuid.UUID
    assert u.version == 7 and u.variant == uuid.RFC_4122
    assert u == uuid.UUID(str(u)) and hash(u) == hash(uuid.UUID(str(u)))
    assert u.is_safe is uuid.SafeUUID.unknown


def test_uuid7_increases_across_calls_and_forms():
    prev = idforge.uuid7()
    for i in range(20000):
        cur = idforge.uuid7() if i % 2 else uuid.UUID(idforge.uuid7_str())
        assert cur > prev
        prev = cur


def test_uuid7_str_is_canonical_text():
    s = idforge.uuid7_str()
    assert CANONICAL.match(s) and s[14] == "7"


def test_uuid4_is_random_version_4():
    a, b = idforge.uuid4(), idforge.uuid4()
    assert type(a) is uuid.UUID and a.version == 4 and a.variant == uuid.RFC_4122
    assert a != b
    s = idforge.uuid4_str()
    assert CANONICAL.match(s) and s[14] == "4"


def test_ulid_is_increasing_crockford_text():
    prev = idforge.ulid()
    for _ in range(20000):
        cur = idforge.ulid()
        assert ULID.match(cur)
        assert cur > prev
        prev = cur


def test_uuid7_from_many_threads_has_no_duplicates_and_each_thread_sees_increase():
    results = [[] for _ in range(4)]

    def work(out):
        for _ in range(20000):
            out.append(idforge.uuid7())

    threads = [threading.Thread(target=work, args=(r,)) for r in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [u for r in results for u in r]
    assert len(set(every)) == len(every) == 80000
    for r in results:
        assert all(a < b for a, b in zip(r, r[1:]))


def test_parse_uuid_takes_every_text_form():
    canonical = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"
    for text in (canonical, canonical.upper(), "{" + canonical + "}", "urn:uuid:" + canonical,
                 canonical.replace("-", "")):
        assert idforge.parse_uuid(text) == uuid.UUID(canonical)


def test_parse_uuid_error_is_a_ValueError_with_position():
    with pytest.raises(idforge.ParseError) as e:
        idforge.parse_uuid("017f22e2-79b0-7cc3-98c4-dc0c0c07398g")
    assert isinstance(e.value, ValueError) and isinstance(e.value, idforge.Error)
    assert e.value.code == "parse_error"
    assert "017f22e2-79b0-7cc3-98c4-dc0c0c07398g" in str(e.value) and "35" in str(e.value)


def test_parse_ulid_round_trip_and_error():
    s = idforge.ulid()
    raw = idforge.parse_ulid(s)
    assert isinstance(raw, bytes) and len(raw) == 16
    assert idforge.parse_ulid(s.lower()) == raw
    with pytest.raises(idforge.ParseError, match="01ARZ3NDEKTSV4RRFFQ69G5FAU"):
        idforge.parse_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAU")
