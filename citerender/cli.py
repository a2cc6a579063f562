"""The ``citerender`` command: check, strip and render answers.

Exit codes: 0 clean, 1 when a diagnostic has error severity, 2 on usage or input errors.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .errors import CiterenderError

__all__ = ["main"]

MAX_ANSWER_BYTES = 64 * 1024 * 1024


def _read_answer(path: str) -> str:
    from .sources import decode_text, read_text_file

    if path == "-":
        data = sys.stdin.buffer.read(MAX_ANSWER_BYTES + 1)
        if len(data) > MAX_ANSWER_BYTES:
            raise CiterenderError(f"answer is over the limit of {MAX_ANSWER_BYTES:,} bytes", path="<stdin>")
        return decode_text(data, "<stdin>", "answer")
    return read_text_file(path, limit=MAX_ANSWER_BYTES, what="answer")


def _load(path: str | None):  # type: ignore[no-untyped-def]
    if path is None:
        return None
    from .sources import load_sources

    return load_sources(path)


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never half-written."""
    p = Path(path)
    if p.is_dir():
        raise CiterenderError("output path is a directory", path=str(p))
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise CiterenderError("output directory does not exist", path=str(parent))
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _print_diagnostics(diags, name: str, fmt: str, stream) -> None:  # type: ignore[no-untyped-def]
    from .diagnostics import to_json

    if fmt == "json":
        print(to_json(diags), file=stream)
    else:
        for d in diags:
            print(d.format(name), file=stream)


def _cmd_check(a: argparse.Namespace) -> int:
    from .check import check
    from .diagnostics import has_errors

    text = _read_answer(a.answer)
    registry = _load(a.sources)
    diags = check(text, registry)
    name = "<stdin>" if a.answer == "-" else a.answer
    _print_diagnostics(diags, name, a.format, sys.stdout)
    if a.format == "text" and diags:
        errors = sum(d.severity.value == "error" for d in diags)
        print(f"{len(diags)} diagnostic(s), {errors} error(s)", file=sys.stderr)
    return 1 if has_errors(diags) else 0


def _cmd_strip(a: argparse.Namespace) -> int:
    from .markers import strip_citations

    text = _read_answer(a.answer)
    out = strip_citations(text)
    if a.output:
        write_atomic(a.output, out)
    else:
        sys.stdout.write(out)
    return 0


def _cmd_render(a: argparse.Namespace) -> int:
    from .diagnostics import has_errors
    from .render import UnknownSourceError, render

    text = _read_answer(a.answer)
    registry = _load(a.sources)
    name = "<stdin>" if a.answer == "-" else a.answer
    try:
        result = render(text, registry, style=a.style, theme=a.theme, standalone=a.standalone,
                        unknown=a.unknown, list_all=a.all_sources, html=a.allow_html)
    except UnknownSourceError as e:
        _print_diagnostics(e.diagnostics, name, "text", sys.stderr)
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    _print_diagnostics(result.diagnostics, name, "text", sys.stderr)
    if a.output:
        write_atomic(a.output, result.html)
    else:
        sys.stdout.write(result.html)
        if not result.html.endswith("\n"):
            sys.stdout.write("\n")
    return 1 if has_errors(result.diagnostics) else 0


def _cmd_codes(a: argparse.Namespace) -> int:
    from .diagnostics import markdown_table

    print(markdown_table())
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .plugin import STYLES, UNKNOWN_POLICIES

    p = argparse.ArgumentParser(prog="citerender", description="Turn LLM citation markers into real citations.")
    p.add_argument("--version", action="version", version=f"citerender {_version()}")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("check", help="report problems with an answer's citations")
    c.add_argument("answer", help="answer file (Markdown with markers), or - for stdin")
    c.add_argument("--sources", "-s", help="sources file (JSON, YAML, TOML, tool output or <BLOCK> text)")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.set_defaults(func=_cmd_check)

    s = sub.add_parser("strip", help="print the answer without any marker")
    s.add_argument("answer")
    s.add_argument("-o", "--output")
    s.set_defaults(func=_cmd_strip)

    r = sub.add_parser("render", help="render an answer to HTML")
    r.add_argument("answer")
    r.add_argument("--sources", "-s")
    r.add_argument("--style", choices=STYLES, default="footnotes")
    r.add_argument("--theme", default="default", help="built-in theme name or a theme folder")
    r.add_argument("--standalone", action="store_true", help="a complete page, CSS inlined")
    r.add_argument("--unknown", choices=UNKNOWN_POLICIES, default="drop")
    r.add_argument("--all-sources", action="store_true", help="list uncited sources too")
    r.add_argument("--allow-html", action="store_true", help="pass raw HTML in the answer through (unsafe)")
    r.add_argument("-o", "--output")
    r.set_defaults(func=_cmd_render)

    k = sub.add_parser("codes", help="print the table of diagnostic codes (Markdown)")
    k.set_defaults(func=_cmd_codes)
    return p


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("citerender")
    except PackageNotFoundError:
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0) if e.code in (0, None) else 2
    try:
        return int(args.func(args))
    except CiterenderError as e:
        print(f"citerender: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
