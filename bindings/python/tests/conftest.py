"""Shared fixtures: a scratch lease folder, and the idforge CLI (IDFORGE_CLI, set by ctest)
for the tests that compare messages and JSON with it. Every test runs with IDFORGE_LEASE_DIR
set to a folder of its own: a fixed node (node=N, no lease store) is registered there, so
the tests neither write into the folder they run in nor see each other's marks."""

import os
import shutil
import subprocess

import pytest


@pytest.fixture(autouse=True)
def default_lease_dir(tmp_path, monkeypatch):
    d = tmp_path / "default-leases"
    monkeypatch.setenv("IDFORGE_LEASE_DIR", str(d))
    return str(d)


@pytest.fixture
def lease_dir(tmp_path):
    d = tmp_path / "leases"
    d.mkdir()
    return str(d)


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("IDFORGE_CLI") or shutil.which("idforge")
    if not path:
        pytest.fail("IDFORGE_CLI is not set and no idforge command is on PATH")
    return path


def run_cli(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=30)
