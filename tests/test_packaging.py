"""The wheel ships the themes, the JSON Schema and py.typed, and finds them when installed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import ROOT


def test_wheel_carries_themes_and_finds_them(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    [wheel] = list(tmp_path.glob("citerender-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "citerender/themes/_core.css",
        "citerender/themes/default/style.css",
        "citerender/themes/default/page.html.j2",
        "citerender/themes/default/bibliography.html.j2",
        "citerender/themes/default/index.html.j2",
        "citerender/themes/report/style.css",
        "citerender/themes/minimal/style.css",
        "citerender/schemas/answer.schema.json",
        "citerender/py.typed",
    ):
        assert needed in names, needed
    assert any(n.endswith("entry_points.txt") for n in names)
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    code = (
        "import citerender.rendering.themes as t; r = t.themes_root(); print(r); "
        "from citerender import render; print(render('x', theme='report', standalone=True).css[:9])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(unpacked), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == str(unpacked / "citerender" / "themes")
    entry = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "citerender = citerender.publish.mkdocs:CiterenderPlugin" in entry
    assert "citerender = citerender.cli:main" in entry
