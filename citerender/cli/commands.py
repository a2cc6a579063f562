"""The subcommands: each reads its arguments, calls the library and says what happened.

Exit codes: 0 clean, 1 when a diagnostic has error severity, 2 on usage or input errors.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import CiterenderError
from ..jobs.files import write_atomic
from ..providers.inputs import read_input
from ..syntax.escapes import visible
from .answers import answer_input, read_answer
from .options import cli_options, cli_scorer, require_extra

if TYPE_CHECKING:
    from ..rendering.exports.parsed import Parsed

__all__ = ["cmd_build", "cmd_check", "cmd_codes", "cmd_context", "cmd_prompt", "cmd_render", "cmd_strip", "cmd_units"]


def _print_diagnostics(diags, name: str, fmt: str, stream) -> None:  # type: ignore[no-untyped-def]
    from ..diagnostics import to_json

    if fmt == "json":
        print(to_json(diags), file=stream)
    else:
        for d in diags:  # answers and file names may hold escape sequences: shown, never sent
            print(visible(d.format(name)), file=stream)


def cmd_check(a: argparse.Namespace) -> int:
    from ..diagnostics import has_errors
    from ..model.check import check, check_with_reports

    inp = answer_input(a, read_input(a.answer, getattr(a, "from_", None)))
    scorer = cli_scorer(a)
    dialect = getattr(a, "dialect", None)  # --from azure, numbered …: the answer's numbers are citations
    name = "<stdin>" if a.answer == "-" else a.answer
    if a.report:  # one parse for the diagnostics and both reports: a scorer judges each claim once
        found, report, support = check_with_reports(inp.text, inp.registry, scorer=scorer, dialect=dialect)
        diags, support = inp.notes + inp.in_file(found), support.in_file(inp.first_line)
        if a.format == "json":
            data = {"diagnostics": [d.to_dict() for d in diags], "report": report.to_dict()}
            print(json.dumps({**data, "support": support.to_dict()}, ensure_ascii=False, indent=2))
        else:
            _print_diagnostics(diags, name, a.format, sys.stdout)
            print(report.format())
            print()
            print(visible(support.format()))
    else:
        diags = inp.notes + inp.in_file(check(inp.text, inp.registry, scorer=scorer, dialect=dialect))
        _print_diagnostics(diags, name, a.format, sys.stdout)
    if a.format == "text" and diags:
        errors = sum(d.severity.value == "error" for d in diags)
        print(f"{len(diags)} diagnostic(s), {errors} error(s)", file=sys.stderr)
    return 1 if has_errors(diags) else 0


def _registry_or_documents(paths: list[str], a: argparse.Namespace):  # type: ignore[no-untyped-def]
    """A registry file as it is, or documents (.md/.txt/.html) cut into units."""
    from ..sources.files import load_sources
    from ..sources.units import load_document, make_units

    data_suffixes = (".json", ".yaml", ".yml", ".toml")
    if len(paths) == 1 and Path(paths[0]).suffix.lower() in data_suffixes:
        return load_sources(paths[0])
    if len(paths) == 1 and Path(paths[0]).suffix.lower() == ".txt":
        head = Path(paths[0]).read_text(encoding="utf-8", errors="replace")[:200].lstrip()
        if head.startswith(("Citation Marker:", "<BLOCK")):
            return load_sources(paths[0])
    html = [p for p in paths if Path(p).suffix.lower() in (".html", ".htm")]
    if html:  # before any document is read: a missing extra is said first, and nothing is written
        require_extra("html", "bs4", f"reading an HTML page ({html[0]})", "beautifulsoup4")
    ids = a.ids or ("block" if getattr(a, "format", "tool") == "blocks" else "turn")
    docs = [load_document(p) for p in paths]
    return make_units(
        docs,
        unit=a.unit,
        ids=ids,  # type: ignore[arg-type]
        turn=a.turn,
        block_chars=a.block_chars,
        width=a.width,
    )


def cmd_context(a: argparse.Namespace) -> int:
    from ..sources.present import present

    sys.stdout.write(present(_registry_or_documents(a.sources, a), a.format))
    return 0


def cmd_units(a: argparse.Namespace) -> int:
    registry = _registry_or_documents(a.documents, a)
    sources = []
    for s in registry.values():
        row = {
            "id": s.id,
            "title": s.title,
            "url": s.url,
            "updated": s.updated,
            "lines": list(s.lines) if s.lines is not None else None,
            "text": s.text,
            "meta": dict(s.meta) or None,
        }
        sources.append({k: v for k, v in row.items() if v is not None})  # what a unit lacks is left out
    out = json.dumps({"sources": sources}, ensure_ascii=False, indent=2) + "\n"
    if a.output:
        write_atomic(a.output, out)
        print(f"wrote {len(registry)} source(s) to {a.output}", file=sys.stderr)
    else:
        sys.stdout.write(out)
    return 0


def cmd_prompt(a: argparse.Namespace) -> int:
    from ..model.prompts import citation_instructions

    markers: Literal["real", "placeholders", "escapes"] = (
        "placeholders" if a.placeholders else "escapes" if a.escapes else "real"
    )
    sys.stdout.write(
        citation_instructions(
            a.pattern,
            locators=not a.no_locators,
            tool_name=a.tool_name,
            id_kind=a.id_kind,
            markers=markers,
            extra=a.extra,
        )
    )
    return 0


def _refuse_overwriting_inputs(output: str | None, *inputs: str | None) -> None:
    """``render a.md -o a.md`` would replace the answer with its own rendering: refused."""
    if not output:
        return
    out = Path(output)
    for given in inputs:
        if given and given != "-" and out.exists() and Path(given).exists() and out.samefile(given):
            raise CiterenderError(
                "the output file is an input file", path=output, hint="write the output to another file"
            )


def cmd_strip(a: argparse.Namespace) -> int:
    from ..rendering.exports.markdown import to_stripped
    from ..rendering.exports.parsed import parse_answer

    _refuse_overwriting_inputs(a.output, a.answer)
    text, registry = read_answer(a.answer)
    out = to_stripped(parse_answer(text, registry, dialect=getattr(a, "dialect", None)))
    if a.output:
        write_atomic(a.output, out)
    else:
        sys.stdout.write(out)
    return 0


# what each output format ignores: giving it is an error, never silence
_NO_EFFECT = {
    "html": (),
    "pdf": ("standalone",),
    "docx": ("style", "theme", "standalone", "id_prefix", "mark_unsupported"),
    "markdown": ("style", "theme", "standalone", "mark_unsupported"),
    "json": ("style", "theme", "standalone", "mark_unsupported"),
    "text": ("style", "theme", "standalone", "allow_html", "id_prefix", "mark_unsupported"),
    "csl-json": ("style", "theme", "standalone", "allow_html", "id_prefix", "mark_unsupported"),
    "bibtex": ("style", "theme", "standalone", "allow_html", "id_prefix", "mark_unsupported"),
    "ris": ("style", "theme", "standalone", "allow_html", "id_prefix", "mark_unsupported"),
    "ai-sdk": ("style", "theme", "standalone", "mark_unsupported"),
    "annotations": ("style", "theme", "standalone", "allow_html", "mark_unsupported"),
}


def _refuse_options_without_effect(a: argparse.Namespace) -> None:
    given = [name for name in _NO_EFFECT[a.to] if getattr(a, name, None)]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        why = "a PDF is always a complete page" if a.to == "pdf" else f"--to {a.to} has no styles, themes or pages"
        raise CiterenderError(
            f"{flags} {'has' if len(given) == 1 else 'have'} no effect with --to {a.to} ({why})",
            hint=f"drop {flags}, or render HTML with --to html",
        )


def _export(to: str, parsed: Parsed) -> str:
    """The text export ``to`` of a parsed answer (each writer imported only when asked for)."""
    if to == "ai-sdk":
        from ..providers.aisdk import to_ui_message

        return json.dumps(to_ui_message(parsed), ensure_ascii=False, indent=2) + "\n"
    from ..rendering.exports.annotations import to_annotations
    from ..rendering.exports.bib import to_bibtex, to_ris
    from ..rendering.exports.csl import to_csl_json
    from ..rendering.exports.json import to_json
    from ..rendering.exports.markdown import to_markdown
    from ..rendering.exports.text import to_text

    writers: dict[str, Callable[[Parsed], str]] = {
        "markdown": to_markdown, "text": to_text, "json": to_json, "csl-json": to_csl_json,
        "bibtex": to_bibtex, "ris": to_ris, "annotations": to_annotations,
    }  # fmt: skip
    return writers[to](parsed)


@contextmanager
def _about(name: str) -> Iterator[None]:
    """An input error the answer caused (too many markers, noncharacters the annotations export
    needs…) names the answer's file, as every other input error does."""
    try:
        yield
    except CiterenderError as e:
        if e.path is not None or type(e) is not CiterenderError:  # a subclass carries its own meaning
            raise
        raise CiterenderError(e.message, path=name, line=e.line, hint=e.hint) from None


def cmd_render(a: argparse.Namespace) -> int:
    from ..diagnostics import has_errors
    from ..rendering.html import UnknownSourceError, render

    _refuse_overwriting_inputs(a.output, a.answer, getattr(a, "sources", None))
    _refuse_options_without_effect(a)
    if a.to == "pdf":  # before the answer is read or rendered: a missing extra is said first
        require_extra("pdf", "weasyprint", "render --to pdf")
    src = read_input(a.answer, getattr(a, "from_", None))  # the one read of the input
    if src.kind in ("export", "transcript"):
        from .transcripts import render_conversation_page

        return render_conversation_page(a, src)
    if getattr(a, "conversation", None):
        raise CiterenderError("--conversation names a conversation of a chat export", path=a.answer)
    inp = answer_input(a, src)
    text, registry = inp.text, inp.registry
    name = "<stdin>" if a.answer == "-" else a.answer
    if a.to in ("pdf", "docx") and not a.output:
        raise CiterenderError(f"--to {a.to} needs an output file", hint=f"add -o answer.{a.to}")
    if a.to in ("html", "pdf"):
        try:
            with _about(name):
                result = render(
                    text, registry, cli_options(a, standalone=a.standalone or a.to == "pdf"), title=inp.title
                )
        except UnknownSourceError as e:
            _print_diagnostics(inp.in_file(e.diagnostics), name, "text", sys.stderr)
            print(f"{name}: {e}", file=sys.stderr)
            return 1
        diags, out = inp.notes + inp.in_file(result.diagnostics), result.html
    else:
        from ..rendering.exports.parsed import parse_answer

        opts = cli_options(a)
        with _about(name):  # the JSON export carries every claim's verdict
            parsed = parse_answer(text, registry, opts, evidence=a.to == "json")
        diags = inp.notes + inp.in_file(parsed.diagnostics)
        parsed.state.diagnostics.extend(inp.notes)  # what the adapter reported is in the JSON export too
        if opts.unknown == "error" and parsed.state.unknown_ids:
            _print_diagnostics(diags, name, "text", sys.stderr)
            print(
                f"{name}: unknown source id(s): {', '.join(map(repr, dict.fromkeys(parsed.state.unknown_ids)))}",
                file=sys.stderr,
            )
            return 1
        if a.to == "docx":
            from ..rendering.exports.docx import to_docx

            _print_diagnostics(diags, name, "text", sys.stderr)
            write_atomic(a.output, to_docx(parsed))
            return 1 if has_errors(diags) else 0
        with _about(name):
            out = _export(a.to, parsed)
        if a.to == "markdown":  # the page's metadata stays with it
            out = inp.cleaned_front_matter() + out
    _print_diagnostics(diags, name, "text", sys.stderr)
    _write_rendered(a, out)
    return 1 if has_errors(diags) else 0


def _write_rendered(a: argparse.Namespace, out: str) -> None:
    """A rendered page or text export where ``render`` was asked to put it: a PDF of the page
    (``--to pdf``), the output file, or standard output ending with a line break."""
    if a.to == "pdf":
        from ..rendering.exports.pdf import to_pdf

        write_atomic(a.output, to_pdf(out))
    elif a.output:
        write_atomic(a.output, out)
    else:
        sys.stdout.write(out)
        if not out.endswith("\n"):
            sys.stdout.write("\n")


def cmd_build(a: argparse.Namespace) -> int:
    from ..providers.archive import is_export_folder
    from ..publish.site import build_site, summarise

    jobs = a.jobs if a.jobs > 0 else (os.cpu_count() or 1)
    src = Path(a.src)
    if src.exists() and (not src.is_dir() or is_export_folder(src)):  # a chat export (its file, zip or folder)
        from ..publish.conversations import build_conversations  # or a transcript: a page per conversation

        result = build_conversations(
            a.src,
            a.out,
            cli_options(a),
            jobs=jobs,
            force=a.force,
            overwrite=a.overwrite,
            provider=getattr(a, "from_", None),
            max_export_bytes=a.max_export_bytes,
        )
    else:
        result = build_site(
            a.src,
            a.out,
            cli_options(a),
            jobs=jobs,
            force=a.force,
            follow_outside=a.follow_outside,
            overwrite=a.overwrite,
        )
    summarise(result, sys.stderr, verbose=a.verbose)
    if result.failed:
        return 2
    if a.strict and result.strict_problems():
        unverified = sum(1 for p in result.pages if p.unverified)
        print(f"--strict: {result.errors} error(s), {result.warnings} warning(s), {unverified} page(s) without sources",
              file=sys.stderr)  # fmt: skip
        return 1
    return 1 if result.errors else 0


def cmd_codes(a: argparse.Namespace) -> int:
    from ..diagnostics import markdown_table

    print(markdown_table())
    return 0
