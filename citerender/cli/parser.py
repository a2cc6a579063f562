"""The argument parser: one small function per subcommand; render options come with the defaults
of :class:`citerender.RenderOptions`, as at every other entry point."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..rendering.exports import FORMAT_ALIASES, FORMATS
from .commands import cmd_build, cmd_check, cmd_codes, cmd_context, cmd_prompt, cmd_render, cmd_strip, cmd_units

if TYPE_CHECKING:
    from ..formats import Kind

__all__ = ["build_parser"]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``citerender`` parser, with only the subcommand ``command`` names (each costs argparse a
    search for its translations); without one, or for a name no subcommand has, with all."""
    p = _Parser(prog="citerender", description="Turn LLM citation markers into real citations.")
    p.add_argument("--version", action=_VersionAction, nargs=0, help="show the version and exit")
    sub = p.add_subparsers(dest="command", required=True)
    for name, add in _SUBCOMMANDS.items():
        if command not in _SUBCOMMANDS or name == command:
            add(sub)
    return p


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, told the terminal's width (``$COLUMNS``, else the terminal's,
    else 80, as ``shutil.get_terminal_size`` says) by ``os``: importing ``shutil`` (bz2, lzma),
    which argparse does for each argument, slowed the start-up."""

    def __init__(self, prog: str, *args: Any, **kwargs: Any) -> None:
        if not args and kwargs.get("width") is None:
            kwargs["width"] = _columns() - 2  # as argparse leaves a margin of 2
        super().__init__(prog, *args, **kwargs)


def _columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Parser(argparse.ArgumentParser):
    """The parser of ``citerender`` and of each subcommand (argparse makes a subcommand's parser of
    its parent's class), with :class:`_HelpFormatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


def _add_check_dataset(sub: Any) -> None:
    from .dataset import add_check_dataset

    add_check_dataset(sub, _add_scorer)


def _add_codes(sub: Any) -> None:
    sub.add_parser("codes", help="print the table of diagnostic codes (Markdown)").set_defaults(func=cmd_codes)


def _add_from(q: argparse.ArgumentParser, *, export_only: bool = False) -> None:
    q.add_argument(
        "--from",
        dest="from_",
        metavar="FORMAT",
        action=_FromAction,
        choices=_FormatNames("export", "dialect") if export_only else _FormatNames(),
        export_only=export_only,
    )


class _FormatNames:
    """``--from``'s choices: the formats' table, read when argparse first looks at them (a value to
    check, an error to word, ``--help``), so that a call without ``--from`` never loads it."""

    def __init__(self, *kinds: Kind) -> None:
        self.kinds = kinds

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def _names(self) -> tuple[str, ...]:
        from ..formats import names

        return names(*self.kinds)


class _FromAction(argparse.Action):
    """``--from FORMAT`` (stored as given); its help names the formats' table's entries, read
    when the help is shown."""

    def __init__(self, option_strings: list[str], dest: str, *, export_only: bool = False, **kwargs: Any) -> None:
        self.export_only = export_only
        super().__init__(option_strings, dest, **kwargs)

    @property
    def help(self) -> str:
        from ..formats import FORMATS, names

        exports = names("export")
        responses = "" if self.export_only else f"a saved response ({', '.join(names('response'))}); "
        dialects = ", ".join(f"{f.name} {f.summary}" for f in FORMATS if f.kind == "dialect")
        return (
            f"what the input is, when its name and first bytes do not say: {responses}a chat export"
            f" ({', '.join(exports)}); or the answer's citations are a RAG framework's numbers, never inferred:"
            f" {dialects} (each names a source in the sources' order)"
        )

    @help.setter
    def help(self, _given: str | None) -> None:  # argparse sets it: the property writes it
        pass

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)


def _add_render_options(q: argparse.ArgumentParser) -> None:
    """The render options, with the defaults of :class:`RenderOptions` (as everywhere); left
    ``None`` here so that ``render`` can tell an option given for a format it does not affect."""
    from ..options import MARKDOWN_PRESETS, STYLES, UNKNOWN_POLICIES, RenderOptions

    d = RenderOptions()
    q.add_argument("--style", choices=STYLES, help=f"citation style (default: {d.style})")
    q.add_argument("--theme", help=f"built-in theme name or a theme folder (default: {d.theme})")
    q.add_argument("--unknown", choices=UNKNOWN_POLICIES, help=f"ids the sources lack (default: {d.unknown})")
    q.add_argument(
        "--markdown",
        choices=MARKDOWN_PRESETS,
        help=f"Markdown features: full (task lists, bare URLs, footnotes, math, highlighting) or strict commonmark"
        f" (default: {d.markdown})",
    )
    q.add_argument("--engine", help=argparse.SUPPRESS)  # removed (one pipeline): a usage error naming the change
    q.add_argument("--id-prefix", help="put before every HTML id, so several answers can share a page")
    q.add_argument("--repo", metavar="DIR", help="repository checkout that Codex file citations are read from")
    q.add_argument("--repo-url", metavar="URL", help="repository web address: file citations link to URL/path#L10-L20")
    _switches(
        q,
        {
            "--repo-include-hidden": "let file citations quote hidden paths of the checkout (.env, .git/config):"
            " refused by default",
            "--consulted": "list the sources consulted but never cited (search results, pages read) after the"
            " bibliography",
            "--keep-code-residue": "keep ChatGPT copy residue (:contentReference[oaicite:N]{index=N}) inside code:"
            " removed by default",
            "--mark-unsupported": "flag claims their cited passage does not support (a badge, and a note in the hover"
            " card)",
        },
        default=None,  # not given: the RenderOptions default
    )
    _add_scorer(q)


def _switches(q: argparse.ArgumentParser, helps: dict[str, str], default: bool | None = False) -> None:
    """Options that are on when given, each with its help."""
    for flag, text in helps.items():
        q.add_argument(flag, action="store_true", default=default, help=text)


def _add_scorer(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--scorer",
        metavar="MODULE:NAME",
        help="a support scorer of yours (score(claim, evidence) -> 0..1) used with the built-in checks",
    )


def _add_unit_options(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--unit",
        choices=("document", "block", "line"),
        default="block",
        help="granularity of the citable units cut from documents",
    )
    q.add_argument(
        "--ids", choices=("turn", "block", "content"), help="id shape: turn{T}file{N}, block{N}, or content-derived"
    )
    q.add_argument("--turn", type=int, default=0, help="tool turn for turn ids")
    q.add_argument("--block-chars", type=int, default=800, help="target size of block units")
    q.add_argument("--width", type=int, default=100, help="wrap width of line units")


def _add_check(sub: Any) -> None:
    c = sub.add_parser("check", help="report problems with an answer's citations")
    c.add_argument("answer", help="answer file (Markdown with markers), or - for stdin")
    c.add_argument("--sources", "-s", help="sources file (JSON, YAML, TOML, tool output or <BLOCK> text)")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument(
        "--report", action="store_true", help="add the answer quality report and the per-claim support table"
    )
    _add_scorer(c)
    _add_from(c)
    c.set_defaults(func=cmd_check)


def _add_context(sub: Any) -> None:
    x = sub.add_parser("context", help="print sources as the model should see them")
    x.add_argument("sources", nargs="+", help="a registry file, or documents (.md, .txt, .html)")
    x.add_argument("--format", choices=("tool", "blocks"), default="tool")
    _add_unit_options(x)
    x.set_defaults(func=cmd_context)


def _add_units(sub: Any) -> None:
    u = sub.add_parser("units", help="cut documents into citable units and write a registry")
    u.add_argument("documents", nargs="+")
    u.add_argument("-o", "--output")
    _add_unit_options(u)
    u.set_defaults(func=cmd_units, format="tool")


def _add_prompt(sub: Any) -> None:
    q = sub.add_parser("prompt", help="print the citation section of a system prompt")
    q.add_argument("--pattern", choices=("tool", "injected"), default="tool")
    q.add_argument("--no-locators", action="store_true", help="sources have no numbered lines")
    q.add_argument("--tool-name", default="tool_1")
    q.add_argument("--id-kind", default="file", help="kind in turn{T}<kind>{N} ids (tool pattern)")
    group = q.add_mutually_exclusive_group()
    group.add_argument("--placeholders", action="store_true", help="write {CITATION_START}-style placeholders")
    group.add_argument("--escapes", action="store_true", help="write \\ue200-style escapes")
    q.add_argument("--extra", action="store_true", help="add the extra considerations block")
    q.set_defaults(func=cmd_prompt)


def _add_strip(sub: Any) -> None:

    s = sub.add_parser("strip", help="print the answer without any marker")
    s.add_argument("answer")
    s.add_argument("-o", "--output")
    s.add_argument(
        "--from",
        dest="from_",
        choices=_FormatNames("dialect"),
        help="also remove a RAG framework's numbers ([doc1], [ID:0], …)",
    )
    s.set_defaults(func=cmd_strip)


def _add_render(sub: Any) -> None:
    r = sub.add_parser("render", help="render an answer to HTML (or another format with --to)")
    r.add_argument("answer")
    r.add_argument("--sources", "-s", help="sources file; without one, ids are numbered but not checked")
    _add_render_options(r)
    r.add_argument("--standalone", action="store_true", help="a complete page, CSS inlined")
    r.add_argument(
        "--to",
        choices=FORMATS,
        type=lambda name: FORMAT_ALIASES.get(name, name),
        default="html",
        help="output format (pdf needs the [pdf] extra; annotations: W3C Web Annotations, JSON-LD)",
    )
    r.add_argument("--all-sources", action="store_true", help="list uncited sources too")
    _add_from(r)
    r.add_argument("--allow-html", action="store_true", help="pass raw HTML in the answer through (unsafe)")
    r.add_argument("--conversation", metavar="ID_OR_TITLE", help="with a ChatGPT export: the conversation to render")
    r.add_argument("-o", "--output")
    r.set_defaults(func=cmd_render)


def _add_build(sub: Any) -> None:
    b = sub.add_parser(
        "build", help="render every answer under a folder, or every conversation of a ChatGPT export, into a site"
    )
    b.add_argument("src")
    b.add_argument("out")
    _add_render_options(b)
    b.add_argument("--jobs", "-j", type=int, default=0, help="worker processes (default: all cores)")
    _switches(
        b,
        {
            "--force": "render every page again, even those up to date",
            "--check-support": "check that each cited passage supports its claim (CR401-CR406, as check does), on"
            " every page",
            "--strict": "exit 1 on warnings too (support checks' included) and on pages rendered without sources",
            "--overwrite": "write over pages someone changed since the last build (refused otherwise)",
            "--follow-outside": "publish answers that link, and sources that lie, outside the source folder",
        },
    )
    b.add_argument("--verbose", "-v", action="store_true", help="print every diagnostic")
    b.add_argument(
        "--max-export-bytes",
        type=int,
        default=4 * 1024**3,
        metavar="N",
        help="the most a zipped chat export may inflate to (default: 4 GiB; it may also inflate at most 200x)",
    )
    _add_from(b, export_only=True)
    b.set_defaults(func=cmd_build)


#: each subcommand's parser, by the name a call gives (in the order ``--help`` lists them)
_SUBCOMMANDS: dict[str | None, Callable[[Any], None]] = {
    "check": _add_check,
    "context": _add_context,
    "units": _add_units,
    "prompt": _add_prompt,
    "strip": _add_strip,
    "render": _add_render,
    "build": _add_build,
    "check-dataset": _add_check_dataset,
    "codes": _add_codes,
}


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked (importlib.metadata costs ~30 ms at start-up)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"citerender {version('citerender')}")
        except PackageNotFoundError:
            print("citerender 0+unknown")
        parser.exit()
