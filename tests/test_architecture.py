"""The layout holds: imports run one way along the pipeline, no private name crosses a module,
and modules and functions stay small enough to read."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "citerender"
MAX_MODULE_LINES = 420
MAX_FUNCTION_LINES = 80


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_layers_contract_is_kept() -> None:
    """import-linter's layers contract in pyproject.toml (deferred imports count)."""
    exe = Path(sys.executable).with_name("lint-imports")
    r = subprocess.run([str(exe)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "1 kept, 0 broken" in r.stdout, r.stdout + r.stderr


def test_no_private_name_is_imported_across_modules() -> None:
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("citerender")):
                found += [
                    f"{path.relative_to(ROOT)}:{node.lineno} {a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert not found, "private names imported across modules: " + ", ".join(found)


def test_modules_and_functions_stay_small() -> None:
    big = []
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > MAX_MODULE_LINES:
            big.append(f"{path.relative_to(ROOT)}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    big.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}() {n} lines")
    assert not big, "split these: " + "; ".join(big)
