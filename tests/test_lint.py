"""The tree type-checks under mypy --strict, passes ruff (the widened rule set in pyproject.toml)
and is formatted with ruff format."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

TREE = ["citerender", "tests", "bench", "docs", "examples"]


def test_mypy_strict() -> None:
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "check", *TREE], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", *TREE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
