"""Snowflake from Python: fixed and leased nodes, batches, threads, typed errors."""

import os
import threading

import time

import pytest

import idforge


def test_fixed_node_ids_increase_and_carry_the_node():
    s = idforge.Snowflake("twitter", node=7)
    assert s.node == 7
    ids = [s.next() for _ in range(5000)]
    assert all(a < b for a, b in zip(ids, ids[1:]))
    assert idforge.decompose(ids[-1])["node"] == 7
    assert "time=41" in s.layout


def test_next_batch_continues_after_next():
    s = idforge.Snowflake("discord", node=1)
    first = s.next()
    batch = s.next_batch(10000)
    assert len(batch) == 10000 and batch[0] > first
    assert all(a < b for a, b in zip(batch, batch[1:]))
    assert s.next() > batch[-1]
    assert s.next_batch(0) == []


def test_next_batch_rejects_a_negative_count():
    with pytest.raises(ValueError, match="-1"):
        idforge.Snowflake(node=1).next_batch(-1)


def test_threads_sharing_one_generator_get_distinct_ids():
    s = idforge.Snowflake("twitter", node=2)
    results = [[] for _ in range(4)]

    def work(out):
        for _ in range(50):
            out.extend(s.next_batch(200))  # the GIL is released while the batch is made
            out.append(s.next())

    threads = [threading.Thread(target=work, args=(r,)) for r in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [i for r in results for i in r]
    assert len(every) == 4 * 50 * 201 and len(set(every)) == len(every)
    for r in results:
        assert all(a < b for a, b in zip(r, r[1:]))


def test_node_out_of_range_names_the_value_and_the_range():
    with pytest.raises(idforge.NodeOutOfRangeError) as e:
        idforge.Snowflake("twitter", node=1024)
    assert isinstance(e.value, ValueError)
    assert "1024" in str(e.value) and "0..1023" in str(e.value)
    assert e.value.code == "node_out_of_range"


def test_bad_layout_is_a_ParseError_or_LayoutError():
    with pytest.raises(idforge.ParseError, match="no-such-preset"):
        idforge.Snowflake("no-such-preset", node=1)
    with pytest.raises(idforge.LayoutError):
        idforge.Snowflake("time=41,worker=10,seq=20", node=1)


def test_a_generator_needs_a_node_or_a_store():
    with pytest.raises(idforge.InvalidArgumentError, match="lease store"):
        idforge.Snowflake("twitter")
    with pytest.raises(ValueError, match="-2"):
        idforge.Snowflake("twitter", node=-2)


def test_a_node_the_url_names_but_locks_nowhere_is_refused(lease_dir):
    for url in ("static:5", "ordinal:api-3"):
        with pytest.raises(idforge.InvalidArgumentError, match="locks nothing") as e:
            idforge.Snowflake(lease_store=url)
        assert url in str(e.value)
    s = idforge.Snowflake(lease_store="static:5?state=" + lease_dir)
    assert s.node == 5
    with pytest.raises(idforge.LeaseError):
        idforge.Snowflake(lease_store="static:5?state=" + lease_dir)
    s.release()


def test_unreachable_store_is_a_RuntimeError_naming_it():
    with pytest.raises(idforge.StoreUnreachableError) as e:
        idforge.Snowflake(lease_store="redis://127.0.0.1:1?timeout=200")
    assert isinstance(e.value, RuntimeError) and isinstance(e.value, idforge.LeaseError)
    assert "127.0.0.1:1" in str(e.value)


def test_leased_generators_get_distinct_nodes_and_release_them(lease_dir):
    url = "file:" + lease_dir
    a = idforge.Snowflake(lease_store=url)
    b = idforge.Snowflake(lease_store=url)
    assert a.node != b.node
    with pytest.raises(idforge.LeaseError, match=lease_dir):
        idforge.Snowflake(node=a.node, lease_store=url)
    taken = a.node
    a.close()
    assert a.closed
    with pytest.raises(idforge.InvalidArgumentError, match="closed"):
        a.next()
    with idforge.Snowflake(node=taken, lease_store=url) as again:
        assert again.node == taken and again.next() > 0
    b.release()
    with pytest.raises(idforge.LeaseError):
        b.next()


def test_release_of_a_fixed_generator_stops_it():
    s = idforge.Snowflake(node=4)
    s.release()
    # FencedError, or LeaseError ("was released") once a fixed node is registered
    with pytest.raises(idforge.LeaseError):
        s.next()


def test_one_node_one_live_generator_whatever_the_layout_or_store(lease_dir):
    # The layout spelled as its spec, and one that puts the node's bits in the same place, on
    # another store: 1,000 of 2,000 IDs were equal before.
    a = idforge.Snowflake("twitter", node=41)
    for layout in ("time=41,dc=5,worker=5,seq=12,epoch=1288834974657",
                   "time=41,dc=0,worker=10,seq=12,epoch=1288834974657"):
        with pytest.raises(idforge.LeaseError, match="node 41 is held by a live generator"):
            idforge.Snowflake(layout, node=41, lease_store="file:" + lease_dir)
    a.close()


def test_a_failed_rebind_in_a_forked_child_refuses_instead_of_crashing():
    # rebind to the parent's node fails (its lock is the parent's); next() then crashed the
    # child with SIGSEGV.
    gen = idforge.Snowflake(node=42)
    gen.next()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            try:
                gen.rebind(42)
                code = 1
            except idforge.LeaseError:
                pass
            try:
                gen.next()
                code = 2
            except idforge.ForkedError as e:
                code = 0 if "rebind failed" in str(e) else 3
            gen.rebind(43)
            gen.next()
        except BaseException:
            code = 4
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    gen.close()


def test_rebind_belongs_to_a_forked_child():
    with pytest.raises(idforge.InvalidArgumentError):
        idforge.Snowflake(node=4).rebind(5)


def test_decompose_and_compose_round_trip():
    s = idforge.Snowflake("sonyflake", node=9)
    i = s.next()
    parts = idforge.decompose(i, "sonyflake")
    assert parts["node"] == 9
    assert idforge.compose(parts["tick"], parts["node"], parts["sequence"], "sonyflake") == i
    with pytest.raises(idforge.InvalidArgumentError, match="sign bit"):
        idforge.decompose(1 << 63)
    with pytest.raises(idforge.InvalidArgumentError, match="1024"):
        idforge.compose(1, 1024, 0)


def test_a_batch_waits_at_most_a_second_in_all():
    # One ID per 600 ms tick: each wait of next_batch(5) was within the one-second bound, and
    # together they blocked the caller (and Ctrl-C) for about 2.5 s.
    gen = idforge.Snowflake(layout="time=50,dc=0,worker=13,seq=0,tick=600ms", node=1)
    start = time.monotonic()
    with pytest.raises(idforge.ExhaustedError, match="a call waits at most 1000 ms in all"):
        gen.next_batch(5)
    assert time.monotonic() - start < 1.5


def test_a_day_long_tick_refuses_instead_of_blocking_until_the_next_day():
    # Two IDs a day: a later call used to block (with Ctrl-C held off) until the next day.
    # Node 13: no other test of the process issues with it, so no earlier handle's time (under
    # any layout) lies in today's tick.
    gen = idforge.Snowflake(layout="time=58,node=4,seq=1,tick=86400000ms,epoch=2020-01-01", node=13)
    issued = []
    with pytest.raises(idforge.ExhaustedError, match="max_sequence_wait_ms = 1000"):
        for _ in range(6):  # within a second of midnight UTC one wait is allowed
            issued.append(gen.next())
    assert issued == sorted(set(issued)) and len(issued) >= 2


def test_an_instance_whose_init_never_ran_is_refused_not_crashed():
    # Snowflake.__new__ alone: every method used to crash the interpreter (pybind11 hands
    # methods unconstructed memory), except next().
    S = idforge.Snowflake
    calls = [lambda x: x.close(), lambda x: x.release(), lambda x: x.next_batch(1),
             lambda x: x.rebind(1), lambda x: x.node, lambda x: x.layout, lambda x: x.next(),
             lambda x: x.__enter__(), lambda x: x.__exit__(None, None, None)]
    for call in calls:
        with pytest.raises(idforge.InvalidArgumentError, match="not initialised"):
            call(S.__new__(S))
    x = S.__new__(S)
    assert x.closed
    with pytest.raises(idforge.InvalidArgumentError, match="not initialised"):
        x.node  # after closed touched it
    with pytest.raises(idforge.InvalidArgumentError, match="not a Snowflake"):
        S.close(5)
