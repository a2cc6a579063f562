"""The one table of ``--from`` names (:mod:`citerender.formats`): every subcommand's choices, the
detection order, the options' names and the documentation's provider table come from it, its
entries share one interface, and no other module-level table is keyed by those names."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from pathlib import Path
from typing import Any

from conftest import FIXTURES, ROOT

from citerender.cli import build_parser
from citerender.errors import CiterenderError
from citerender.formats import FORMATS, Events, Format, detect, names, provider_table
from citerender.options import DIALECTS, PROVIDERS
from citerender.providers import detect_provider

#: module-level enumerations of --from names owned elsewhere, until their owner derives them
ALLOWED = {"citerender/stream/events.py:LIVE_PROVIDERS"}  # the providers LiveAnswer has a reader for


def _from_choices() -> dict[str, set[str]]:
    """Each subcommand's ``--from`` choices, read from the argument parser itself."""
    out = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, parser in action.choices.items():
                for a in parser._actions:
                    if "--from" in a.option_strings:
                        out[command] = set(a.choices or ())
    return out


def test_the_table_names_every_from_choice_of_every_subcommand() -> None:
    table = [f.name for f in FORMATS]
    assert len(table) == len(set(table)) == 29
    choices = _from_choices()
    assert set().union(*choices.values()) == set(table)
    assert choices["render"] == choices["check"] == set(table)
    assert choices["strip"] == set(DIALECTS) and choices["build"] == set(names("export", "dialect"))
    assert names("response") == PROVIDERS and names("dialect") == DIALECTS


def _load(ref: str) -> Callable[..., Any]:
    module, _, name = ref.partition(":")
    found: Callable[..., Any] = getattr(import_module(module), name)
    return found


def _required(fn: Callable[..., Any]) -> int:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = inspect.signature(fn).parameters.values()
    return sum(1 for p in params if p.kind in kinds and p.default is inspect.Parameter.empty)


def test_every_entry_is_one_frozen_class_whose_callables_agree() -> None:
    assert dataclasses.is_dataclass(Format) and Format.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert Format.__module__.startswith("citerender.") and all(type(f) is Format for f in FORMATS)
    counts: dict[str, set[int]] = {}
    for f in FORMATS:
        for field in ("detect", "stream", "adapter", "collect"):
            value = getattr(f, field)
            if value is not None:
                fn = _load(value) if isinstance(value, str) else value
                counts.setdefault(field, set()).add(_required(fn))
    assert counts == {"detect": {1}, "stream": {1}, "adapter": {2}, "collect": {1}}
    for f in FORMATS:  # each kind carries what it is read by
        assert (f.adapter is not None and f.detect is not None) == (f.kind == "response"), f.name
        assert (f.form is not None) == (f.kind == "dialect") and (f.kind == "response" or f.probes), f.name


def _saved(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def _first(data: Any) -> str | None:
    """The first response entry, in table order, whose test holds."""
    for f in FORMATS:
        if f.kind != "response":
            continue
        if isinstance(data, Mapping) and f.detect is not None and f.detect(data):
            return f.name
        if isinstance(data, list) and f.stream is not None and f.stream(Events.of(data)):
            return f.name
    return None


def test_detection_runs_in_the_table_order() -> None:
    """Every saved response and stream of the fixtures is the first entry whose test holds (a list
    no event test claims: the one shape of its items)."""
    seen = set()
    for path in sorted((FIXTURES / "providers").rglob("*.json*")):
        data = _saved(path)
        try:
            found = detect_provider(data)
        except CiterenderError:
            continue
        first = _first(data)
        if first is None and isinstance(data, list):
            first = detect(data)
        assert found == first, path.name
        seen.add(found)
    assert len(seen) >= 15, seen


def _literal_names(node: ast.AST) -> list[str]:
    """The --from names a dict literal is keyed by, or a tuple, list or set literal holds."""
    every = set(names())
    if isinstance(node, ast.Dict):
        items: list[ast.expr | None] = list(node.keys)
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        items = list(node.elts)
    else:
        return []
    return [k.value for k in items if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value in every]


def test_no_other_module_level_table_is_keyed_by_from_names() -> None:
    found = []
    for path in sorted((ROOT / "citerender").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for stmt in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            label = f"{rel}:{','.join(ast.unparse(t) for t in targets)}"
            if label not in ALLOWED and any(len(_literal_names(n)) >= 3 for n in ast.walk(stmt.value)):
                found.append(label)
    assert found == [], "derive these from citerender.formats.FORMATS: " + ", ".join(found)


def test_the_docs_provider_table_is_the_registry() -> None:
    page = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    assert provider_table() in page, (
        "regenerate the table in docs/providers.md from citerender.formats.provider_table()"
    )


def test_reading_an_answer_loads_no_adapter(tmp_path: Path) -> None:
    """The entries name their readers as strings: rendering a Markdown answer imports none."""
    answer = tmp_path / "answer.md"
    answer.write_text("Paris is in France.\ue200cite\ue202turn0search0\ue201\n", encoding="utf-8")
    code = (
        "import sys\nfrom citerender.cli import main\n"
        f"main(['render', {str(answer)!r}, '-o', {str(tmp_path / 'out.html')!r}])\n"
        "print(sorted(m for m in sys.modules if m.startswith('citerender.providers.')))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    loaded = set(ast.literal_eval(r.stdout.strip().splitlines()[-1]))
    adapters = {f.adapter.partition(":")[0] for f in FORMATS if f.adapter is not None}
    assert loaded & adapters == set(), r.stderr
