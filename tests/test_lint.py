"""The package type-checks under mypy --strict and passes ruff (the settings are in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_mypy_strict() -> None:
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff() -> None:
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "citerender"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
