"""The ``citerender`` command: check, strip and render answers.

Exit codes: 0 clean, 1 when a diagnostic has error severity, 2 on usage or input errors.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from .errors import CiterenderError
from .publish.files import write_atomic

__all__ = ["main"]

MAX_ANSWER_BYTES = 64 * 1024 * 1024


def _read_answer(path: str) -> str:
    from .sources.files import decode_text, read_text_file

    if path == "-":
        data = sys.stdin.buffer.read(MAX_ANSWER_BYTES + 1)
        if len(data) > MAX_ANSWER_BYTES:
            raise CiterenderError(f"answer is over the limit of {MAX_ANSWER_BYTES:,} bytes", path="<stdin>",
                                  hint="split the answer")
        text = decode_text(data, "<stdin>", "answer")
    else:
        text = read_text_file(path, limit=MAX_ANSWER_BYTES, what="answer")
    if not text.strip():
        raise CiterenderError("answer is empty", path="<stdin>" if path == "-" else path,
                              hint="pass the model's answer text")
    return text


def _load(path: str | None):  # type: ignore[no-untyped-def]
    if path is None:
        return None
    from .sources.files import load_sources

    return load_sources(path)


def _print_diagnostics(diags, name: str, fmt: str, stream) -> None:  # type: ignore[no-untyped-def]
    from .diagnostics import to_json

    if fmt == "json":
        print(to_json(diags), file=stream)
    else:
        for d in diags:
            print(d.format(name), file=stream)


def _answer_and_registry(a: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The answer and its registry: a Markdown answer with --sources, or a saved provider
    response (``--from``, inferred for .json / .jsonl files) carrying both."""
    provider = getattr(a, "from_", None)
    if provider or (a.answer != "-" and a.answer.lower().endswith((".json", ".jsonl"))):
        from .providers import load_response

        if a.sources:
            raise CiterenderError("a provider response carries its own sources", path=a.sources,
                                  hint="drop --sources")
        adapted = load_response(a.answer, provider)
        return adapted.text, adapted.registry
    return _read_answer(a.answer), _load(a.sources)


def _cmd_check(a: argparse.Namespace) -> int:
    from .diagnostics import has_errors
    from .model.check import check

    text, registry = _answer_and_registry(a)
    diags = check(text, registry)
    name = "<stdin>" if a.answer == "-" else a.answer
    report = None
    if a.report:
        from .model.quality import quality_report

        report = quality_report(text, registry)
    if a.format == "json" and report is not None:
        print(json.dumps({"diagnostics": [d.to_dict() for d in diags], "report": report.to_dict()},
                         ensure_ascii=False, indent=2))
    else:
        _print_diagnostics(diags, name, a.format, sys.stdout)
        if report is not None:
            print(report.format())
    if a.format == "text" and diags:
        errors = sum(d.severity.value == "error" for d in diags)
        print(f"{len(diags)} diagnostic(s), {errors} error(s)", file=sys.stderr)
    return 1 if has_errors(diags) else 0


def _registry_or_documents(paths: list[str], a: argparse.Namespace):  # type: ignore[no-untyped-def]
    """A registry file as it is, or documents (.md/.txt/.html) cut into units."""
    from .sources.files import load_sources
    from .sources.units import load_document, make_units

    data_suffixes = (".json", ".yaml", ".yml", ".toml")
    if len(paths) == 1 and Path(paths[0]).suffix.lower() in data_suffixes:
        return load_sources(paths[0])
    if len(paths) == 1 and Path(paths[0]).suffix.lower() == ".txt":
        head = Path(paths[0]).read_text(encoding="utf-8", errors="replace")[:200].lstrip()
        if head.startswith(("Citation Marker:", "<BLOCK")):
            return load_sources(paths[0])
    ids = a.ids or ("block" if getattr(a, "format", "tool") == "blocks" else "turn")
    docs = [load_document(p) for p in paths]
    return make_units(docs, unit=a.unit, ids=ids, turn=a.turn, block_chars=a.block_chars,  # type: ignore[arg-type]
                      width=a.width)


def _cmd_context(a: argparse.Namespace) -> int:
    from .sources.present import present

    sys.stdout.write(present(_registry_or_documents(a.sources, a), a.format))
    return 0


def _cmd_units(a: argparse.Namespace) -> int:
    registry = _registry_or_documents(a.documents, a)
    data = {"sources": [{k: v for k, v in (("id", s.id), ("title", s.title), ("url", s.url),
                                           ("updated", s.updated),
                                           ("lines", list(s.lines) if s.lines is not None else None),
                                           ("text", s.text), ("meta", dict(s.meta) or None)) if v is not None}
                        for s in registry.values()]}
    out = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if a.output:
        write_atomic(a.output, out)
        print(f"wrote {len(registry)} source(s) to {a.output}", file=sys.stderr)
    else:
        sys.stdout.write(out)
    return 0


def _cmd_prompt(a: argparse.Namespace) -> int:
    from .model.prompts import citation_instructions

    markers: Literal["real", "placeholders", "escapes"] = (
        "placeholders" if a.placeholders else "escapes" if a.escapes else "real")
    sys.stdout.write(citation_instructions(a.pattern, locators=not a.no_locators, tool_name=a.tool_name,
                                           id_kind=a.id_kind, markers=markers, extra=a.extra))
    return 0


def _cmd_strip(a: argparse.Namespace) -> int:
    from .syntax.guide import strip_citations

    text = _read_answer(a.answer)
    out = strip_citations(text)
    if a.output:
        write_atomic(a.output, out)
    else:
        sys.stdout.write(out)
    return 0


def _cmd_render(a: argparse.Namespace) -> int:
    from .diagnostics import has_errors
    from .rendering.html import UnknownSourceError, render

    text, registry = _answer_and_registry(a)
    name = "<stdin>" if a.answer == "-" else a.answer
    if a.to == "pdf" and not a.output:
        raise CiterenderError("--to pdf needs an output file", hint="add -o answer.pdf")
    if a.to in ("html", "pdf"):
        try:
            result = render(text, registry, style=a.style, theme=a.theme, standalone=a.standalone or a.to == "pdf",
                            unknown=a.unknown, list_all=a.all_sources, html=a.allow_html)
        except UnknownSourceError as e:
            _print_diagnostics(e.diagnostics, name, "text", sys.stderr)
            print(f"{name}: {e}", file=sys.stderr)
            return 1
        diags, out = result.diagnostics, result.html
    else:
        from .rendering.exports.csl import to_csl_json
        from .rendering.exports.json import to_json
        from .rendering.exports.markdown import to_markdown
        from .rendering.exports.parsed import parse_answer
        from .rendering.exports.text import to_text

        parsed = parse_answer(text, registry, unknown="keep" if a.unknown == "error" else a.unknown,
                              list_all=a.all_sources)
        diags = parsed.diagnostics
        if a.unknown == "error" and parsed.state.unknown_ids:
            _print_diagnostics(diags, name, "text", sys.stderr)
            print(f"{name}: unknown source id(s): {', '.join(map(repr, dict.fromkeys(parsed.state.unknown_ids)))}",
                  file=sys.stderr)
            return 1
        out = {"markdown": to_markdown, "text": to_text, "json": to_json, "csl-json": to_csl_json}[a.to](parsed)
    _print_diagnostics(diags, name, "text", sys.stderr)
    if a.to == "pdf":
        from .rendering.exports.pdf import to_pdf

        write_atomic(a.output, to_pdf(out))
    elif a.output:
        write_atomic(a.output, out)
    else:
        sys.stdout.write(out)
        if not out.endswith("\n"):
            sys.stdout.write("\n")
    return 1 if has_errors(diags) else 0


def _cmd_build(a: argparse.Namespace) -> int:
    from .publish.site import build_site, summarise

    jobs = a.jobs if a.jobs > 0 else (os.cpu_count() or 1)
    result = build_site(a.src, a.out, style=a.style, theme=a.theme, unknown=a.unknown, jobs=jobs, force=a.force)
    summarise(result, sys.stderr, verbose=a.verbose)
    if result.failed:
        return 2
    return 1 if result.errors else 0


def _cmd_codes(a: argparse.Namespace) -> int:
    from .diagnostics import markdown_table

    print(markdown_table())
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .options import STYLES, UNKNOWN_POLICIES

    p = argparse.ArgumentParser(prog="citerender", description="Turn LLM citation markers into real citations.")
    p.add_argument("--version", action=_VersionAction, nargs=0, help="show the version and exit")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("check", help="report problems with an answer's citations")
    c.add_argument("answer", help="answer file (Markdown with markers), or - for stdin")
    c.add_argument("--sources", "-s", help="sources file (JSON, YAML, TOML, tool output or <BLOCK> text)")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument("--report", action="store_true", help="add the answer quality report")
    c.add_argument("--from", dest="from_", choices=("openai-responses", "openai-chat", "anthropic",
                                                    "openai-assistants"),
                   help="the answer is a saved provider response (inferred for .json/.jsonl files)")
    c.set_defaults(func=_cmd_check)

    def unit_options(q: argparse.ArgumentParser) -> None:
        q.add_argument("--unit", choices=("document", "block", "line"), default="block",
                       help="granularity of the citable units cut from documents")
        q.add_argument("--ids", choices=("turn", "block", "content"),
                       help="id shape: turn{T}file{N}, block{N}, or content-derived")
        q.add_argument("--turn", type=int, default=0, help="tool turn for turn ids")
        q.add_argument("--block-chars", type=int, default=800, help="target size of block units")
        q.add_argument("--width", type=int, default=100, help="wrap width of line units")

    x = sub.add_parser("context", help="print sources as the model should see them")
    x.add_argument("sources", nargs="+", help="a registry file, or documents (.md, .txt, .html)")
    x.add_argument("--format", choices=("tool", "blocks"), default="tool")
    unit_options(x)
    x.set_defaults(func=_cmd_context)

    u = sub.add_parser("units", help="cut documents into citable units and write a registry")
    u.add_argument("documents", nargs="+")
    u.add_argument("-o", "--output")
    unit_options(u)
    u.set_defaults(func=_cmd_units, format="tool")

    q = sub.add_parser("prompt", help="print the citation section of a system prompt")
    q.add_argument("--pattern", choices=("tool", "injected"), default="tool")
    q.add_argument("--no-locators", action="store_true", help="sources have no numbered lines")
    q.add_argument("--tool-name", default="tool_1")
    q.add_argument("--id-kind", default="file", help="kind in turn{T}<kind>{N} ids (tool pattern)")
    group = q.add_mutually_exclusive_group()
    group.add_argument("--placeholders", action="store_true", help="write {CITATION_START}-style placeholders")
    group.add_argument("--escapes", action="store_true", help="write \\ue200-style escapes")
    q.add_argument("--extra", action="store_true", help="add the extra considerations block")
    q.set_defaults(func=_cmd_prompt)

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
    r.add_argument("--to", choices=("html", "markdown", "text", "json", "csl-json", "pdf"), default="html",
                   help="output format (pdf needs the [pdf] extra)")
    r.add_argument("--unknown", choices=UNKNOWN_POLICIES, default="drop")
    r.add_argument("--all-sources", action="store_true", help="list uncited sources too")
    r.add_argument("--from", dest="from_", choices=("openai-responses", "openai-chat", "anthropic",
                                                    "openai-assistants"),
                   help="the answer is a saved provider response (inferred for .json/.jsonl files)")
    r.add_argument("--allow-html", action="store_true", help="pass raw HTML in the answer through (unsafe)")
    r.add_argument("-o", "--output")
    r.set_defaults(func=_cmd_render)

    b = sub.add_parser("build", help="render every answer under a folder into a static site")
    b.add_argument("src")
    b.add_argument("out")
    b.add_argument("--style", choices=STYLES, default="footnotes")
    b.add_argument("--theme", default="default")
    b.add_argument("--unknown", choices=UNKNOWN_POLICIES, default="drop")
    b.add_argument("--jobs", "-j", type=int, default=0, help="worker processes (default: all cores)")
    b.add_argument("--force", action="store_true", help="overwrite pages changed since the last build")
    b.add_argument("--verbose", "-v", action="store_true", help="print every diagnostic")
    b.set_defaults(func=_cmd_build)

    k = sub.add_parser("codes", help="print the table of diagnostic codes (Markdown)")
    k.set_defaults(func=_cmd_codes)
    return p


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked (importlib.metadata costs ~30 ms at start-up)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"citerender {_version()}")
        parser.exit()


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
