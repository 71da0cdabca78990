"""Interpreter exit while daemon threads are inside calls that run without the GIL: CPython
ends such a thread when it takes the GIL back, and the process must still exit cleanly."""

import os
import subprocess
import sys
import textwrap

import idforge


def run_script(body):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(idforge.__file__))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(body)], env=env,
                          capture_output=True, text=True, timeout=60)


def test_exit_with_a_daemon_thread_in_next_batch():
    r = run_script("""
        import idforge, threading, time
        g = idforge.Snowflake(node=1)
        def spin():
            while True:
                g.next_batch(1)
        threading.Thread(target=spin, daemon=True).start()
        time.sleep(0.3)
    """)
    assert r.returncode == 0, r.stderr
    assert "terminate" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_exit_with_a_daemon_thread_leasing_and_closing(lease_dir):
    r = run_script(f"""
        import idforge, threading, time
        def spin():
            while True:
                idforge.Snowflake(lease_store="file:{lease_dir}?nodes=4").close()
        threading.Thread(target=spin, daemon=True).start()
        time.sleep(0.3)
    """)
    assert r.returncode == 0, r.stderr
    assert "terminate" not in r.stderr and "Traceback" not in r.stderr, r.stderr
