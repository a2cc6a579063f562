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


def _imports() -> dict[str, set[str]]:
    """Every citerender module's imports of citerender modules, deferred ones included."""
    mods = {}
    for p in _modules():
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = pkg.split(".")[: len(pkg.split(".")) - max(node.level - 1, 0)] if node.level else []
                target = ".".join([*base, node.module] if node.module else base) if node.level else node.module or ""
                subs = [f"{target}.{a.name}" for a in node.names]
                # ``from . import module`` needs the package only as it already is, not its __init__
                targets = subs if all(t in mods for t in subs) else [target, *subs]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            graph[m] |= {t for t in targets if t in mods and t != m}
    return graph


def test_no_import_cycle_anywhere() -> None:
    """Not even inside a layer, nor through a deferred import (Tarjan's strongly connected parts)."""
    graph = _imports()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while (w := stack.pop()) != v:
                part.append(w)
            if part:
                cycles.append(sorted([v, *part]))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == []


def _calls(name: str) -> list[str]:
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == name:
                found.append(path.relative_to(ROOT).as_posix())
    return sorted(set(found))


def test_one_module_builds_the_parser_and_one_the_document_state() -> None:
    """The one pipeline: a markdown-it parser is constructed only in rendering/pipeline.py, a
    document state only by the plugin's accessor (which the pipeline calls)."""
    assert _calls("MarkdownIt") == ["citerender/rendering/pipeline.py"]
    assert _calls("CitationState") == ["citerender/plugin/state.py"]


def test_no_second_engine() -> None:
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(n.split(".")[0] == "comrak" for n in names), path
    assert not (PACKAGE / "rendering" / "fast.py").exists() and not (PACKAGE / "rendering" / "blockwise.py").exists()


def test_no_test_statement_that_asserts_nothing() -> None:
    """A comparison or ``and`` written as a statement is a test that asserts nothing
    (``assert_no_marker(x) and len(x) < 10_000`` once was one)."""
    found = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Compare | ast.BoolOp):
                found.append(f"{path.name}:{node.lineno}")
            called = node.test.func if isinstance(node, ast.Assert) and isinstance(node.test, ast.Call) else None
            if called is not None and getattr(called, "id", "").startswith("assert_"):
                found.append(f"{path.name}:{node.lineno} asserts a helper's None")
    assert found == []
