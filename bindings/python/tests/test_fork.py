"""The fork rule from Python: a child never repeats the parent's IDs; a Snowflake in the
child refuses until rebind() gives it a node of its own."""

import os

import idforge


def run_in_child(body):
    """Runs body() in a forked child; returns what it wrote (a str) and its exit status."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 0
        try:
            out = body()
        except BaseException as e:  # the child reports every failure through the pipe
            out, code = f"{type(e).__name__}: {e}", 1
        os.write(w, out.encode())
        os._exit(code)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    return b"".join(chunks).decode(), os.waitstatus_to_exitcode(status)


def test_child_ids_never_repeat_the_parents():
    idforge.uuid7(), idforge.ulid(), idforge.uuid4()  # state exists before the fork
    out, code = run_in_child(
        lambda: "\n".join([idforge.uuid7_str() for _ in range(2000)] +
                          [idforge.ulid() for _ in range(2000)] +
                          [idforge.uuid4_str() for _ in range(2000)]))
    assert code == 0, out
    parent = ([idforge.uuid7_str() for _ in range(2000)] + [idforge.ulid() for _ in range(2000)] +
              [idforge.uuid4_str() for _ in range(2000)])
    child = out.split("\n")
    assert len(child) == 6000
    assert not set(child) & set(parent)


def test_fixed_snowflake_refuses_in_the_child_until_rebound():
    s = idforge.Snowflake("twitter", node=11)
    parent_id = s.next()

    def child():
        try:
            s.next()
            return "next() issued in the child with the parent's node"
        except idforge.ForkedError as e:
            assert isinstance(e, RuntimeError) and e.code == "forked"
        s.rebind(12)
        assert s.node == 12
        i = s.next()
        assert i != parent_id and idforge.decompose(i)["node"] == 12
        return "ok"

    out, code = run_in_child(child)
    assert (out, code) == ("ok", 0)
    assert s.next() > parent_id and s.node == 11


def test_leased_snowflake_takes_its_own_lease_in_the_child(lease_dir):
    s = idforge.Snowflake(lease_store="file:" + lease_dir)
    parent_node = s.node

    def child():
        try:
            s.next()
            return "next() issued in the child with the parent's lease"
        except idforge.ForkedError:
            pass
        s.rebind()
        assert s.node != parent_node
        s.next()
        s.close()  # releases the child's own lease only
        return str(parent_node)

    out, code = run_in_child(child)
    assert (out, code) == (str(parent_node), 0)
    # The parent's lease is intact: it issues, and its node cannot be taken.
    assert s.next() > 0
    try:
        idforge.Snowflake(node=parent_node, lease_store="file:" + lease_dir)
        raise AssertionError("the parent's node was free after the child exited")
    except idforge.LeaseError:
        pass
