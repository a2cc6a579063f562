"""Word documents through pandoc: real footnotes carrying each source's title, URL, date, locator
and the cited lines — the form people move answers into reports in."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from typing import Any

from ...errors import CiterenderError
from .markdown import to_markdown
from .parsed import Parsed

__all__ = ["to_docx"]

PANDOC_TIMEOUT = 120  # seconds; a report converts in well under one
_READ = "markdown-raw_html-raw_tex-raw_attribute"


def to_docx(p: Parsed) -> bytes:
    """The answer as a ``.docx`` with one Word footnote per citation (pandoc on PATH). pandoc reads
    the Markdown export into its tree, every image there becomes its alt text, and only then is the
    document written: the docx writer fetches images, so with none left it fetches nothing."""
    pandoc = shutil.which("pandoc")
    if pandoc is None:
        raise CiterenderError(
            "--to docx needs pandoc, which is not on PATH", hint="install pandoc (Debian: apt-get install pandoc)"
        )
    with tempfile.TemporaryDirectory(prefix="citerender-") as tmp:  # relative paths resolve in an empty folder
        tree = json.loads(
            _pandoc(pandoc, ["-f", _READ, "-t", "json"], to_markdown(p, quotes=True).encode("utf-8"), tmp)
        )
        return _pandoc(
            pandoc, ["-f", "json", "-t", "docx", "-o", "-"], json.dumps(_no_images(tree)).encode("utf-8"), tmp
        )


def _pandoc(pandoc: str, args: list[str], data: bytes, cwd: str) -> bytes:
    try:
        done = subprocess.run(
            [pandoc, *args], input=data, capture_output=True, timeout=PANDOC_TIMEOUT, check=False, cwd=cwd
        )
    except subprocess.TimeoutExpired:
        raise CiterenderError(f"pandoc took longer than {PANDOC_TIMEOUT} s to write the document") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise CiterenderError(f"pandoc could not write the document: {message[-1] if message else done.returncode}")
    return done.stdout


def _no_images(tree: Any) -> Any:
    """pandoc's JSON tree with every ``Image`` replaced by ``[image: alt]`` text, in place and
    without recursion (the tree's depth is the document's)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for k, x in enumerate(node):
                if isinstance(x, dict) and x.get("t") == "Image":
                    node[k] = {"t": "Str", "c": f"[image: {_text(x['c'][1]).strip() or 'untitled'}]"}
                elif isinstance(x, list | dict):
                    stack.append(x)
        elif isinstance(node, dict):
            stack.extend(v for v in node.values() if isinstance(v, list | dict))
    return tree


def _text(inlines: Any) -> str:
    if isinstance(inlines, list):
        return "".join(_text(x) for x in inlines)
    if isinstance(inlines, dict):
        kind = inlines.get("t")
        if kind == "Str":
            return str(inlines["c"])
        if kind in ("Space", "SoftBreak", "LineBreak"):
            return " "
        return _text(inlines.get("c"))
    return ""
