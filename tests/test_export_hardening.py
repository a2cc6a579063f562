"""Exports under hostile input (issue 46): linear in a run of adjacent markers (G14), formulas kept
in plain text (G09), URLs kept as given in BibTeX (G10), one URL allow-list for every export (F01)."""

from __future__ import annotations

import gc
import json
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_cli

from citerender.rendering.exports.bib import to_bibtex
from citerender.rendering.exports.json import to_json
from citerender.rendering.exports.markdown import to_markdown, to_stripped
from citerender.rendering.exports.parsed import Parsed, parse_answer
from citerender.rendering.exports.text import to_text
from citerender.sources.model import registry_from_data

S, D, E = "\ue200", "\ue202", "\ue201"
PANDOC = shutil.which("pandoc") or "/usr/bin/pandoc"
ROUND4 = Path("/work/shared/reproducers/round4")

# ---------------------------------------------------------------------------------------------- G14

#: one marker of each form a run is made of (the reproducer's copy-paste form first)
RUNS = {
    "copy-paste": "citeturn0search0 ",
    "canonical": f"{S}cite{D}turn0search0{E}",
    "canonical spaced": f"{S}cite{D}turn0search0{E} ",
    "bracket": "【cite|turn2search5】",
    "residue": ":contentReference[oaicite:8]{index=8} ",
    "gpt-oss": "【6†L9-L11】",
    "own lines": "citeturn0search0\n",
    "tabs": "citeturn0search0\t",
}
EXPORTS: dict[str, Callable[[Parsed], str]] = {"strip": to_stripped, "json": to_json, "markdown": to_markdown}


def _cpu(text: str, export: Callable[[Parsed], str], registry: object = None) -> float:
    """The least CPU time of three parses and exports of ``text``, the cyclic collector paused while
    timed: what grows is the algorithm's work, not the collector's walks over a heap the rest of
    the suite left large (a full run measured x7 where this file alone measures x4)."""
    best = float("inf")
    for _ in range(3):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            export(parse_answer(text, registry))  # type: ignore[arg-type]
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


@pytest.mark.parametrize("form", list(RUNS))
def test_exports_of_a_run_of_adjacent_markers_are_linear(form: str) -> None:
    """G14: 4x the markers cost at most ~6x the CPU in strip, JSON and Markdown (each removal's seam
    used to walk back over every empty piece the run had left: n² steps)."""
    unit = RUNS[form]
    for name, export in EXPORTS.items():
        small = _cpu("Claim " + unit * 1500 + ".", export)
        large = _cpu("Claim " + unit * 6000 + ".", export)
        assert large <= 6 * small + 0.05, (form, name, small, large)


def test_a_run_of_known_citations_is_linear_and_one_group() -> None:
    """G14 with sources that exist: the run is one group, its notes written once, still linear."""
    reg = registry_from_data([{"id": "turn0search0", "title": "A", "url": "https://a.example/"}])
    unit = f"{S}cite{D}turn0search0{E} "
    small = _cpu("Claim " + unit * 1500 + ".", to_markdown, reg)
    large = _cpu("Claim " + unit * 6000 + ".", to_markdown, reg)
    assert large <= 6 * small + 0.05, (small, large)
    assert to_markdown(parse_answer("Claim " + unit * 50 + ".", reg)).startswith("Claim[^1].\n")


@pytest.mark.parametrize("form", ["copy-paste", "canonical", "canonical spaced", "residue"])
def test_strip_citations_with_tidy_is_linear(form: str) -> None:
    """G14 in the library API: ``strip_citations(text, tidy=True)`` (the same seam walk, in
    ``syntax.marks.tidy_into``) is linear too, and gives the same words."""
    from citerender import strip_citations

    def cpu(n: int) -> float:
        text = "Claim " + RUNS[form] * n + "."
        gc.collect()
        start = time.process_time()
        assert strip_citations(text, tidy=True) == "Claim."
        return time.process_time() - start

    small, large = min(cpu(3000) for _ in range(2)), min(cpu(12000) for _ in range(2))
    assert large <= 6 * small + 0.05, (form, small, large)


@pytest.mark.parametrize("form", ["copy-paste", "canonical spaced", "own lines"])
def test_a_run_removed_leaves_the_words_tidy(form: str) -> None:
    """What the linear seam gives is what the old walk gave: no stray space, the words kept."""
    text = "Before " + RUNS[form] * 40 + "after, and " + RUNS[form] * 3 + "end."
    stripped = to_stripped(parse_answer(text)).replace("\u200b", "")  # what keeps an emptied line one
    assert stripped.split() == ["Before", "after,", "and", "end."]
    assert "  " not in json.loads(to_json(parse_answer(text)))["text"]


# ---------------------------------------------------------------------------------------------- G09

MATH = r"""# Area $\pi r^2$ and \(a^2\)

The area is $\pi r^2$ and the price $5 rose \(x+1\) times; $10 and $20 stay.

- item $x_1$ costs $5
- display \[ x^2 + 1 \] inline and $$a+b$$ doubled

> quoted $$c+d$$ and \(\frac{1}{2}\)

| f | g |
|---|---|
| $y=2$ | \(z\) |

\[
\int_0^1 f(x)\,dx
\]

$$ E = mc^2 $$

1. step
   $$
   a = b
   $$
"""


def test_text_export_keeps_the_reproducers_formulas() -> None:
    """G09: every formula of the reproducer is kept as its TeX; the dollar amount as written."""
    src = (ROUND4 / "G09-text-export-math.md").read_text(encoding="utf-8") if ROUND4.exists() else None
    src = src or "The area is $\\pi r^2$ and the price $5 rose \\(x+1\\) times.\n\n$$\nE = mc^2\n$$\n\n"
    src += "" if "Inline display" in src else "Inline display $$a+b$$ here.\n"
    out = to_text(parse_answer(src))
    assert "The area is $\\pi r^2$ and the price $5 rose \\(x+1\\) times." in out
    assert "$$\nE = mc^2\n$$" in out and "Inline display $$a+b$$ here." in out


def test_text_export_keeps_every_formula_wherever_it_is() -> None:
    """G09 variants: every delimiter (``$``, ``$$``, ``\\(``, ``\\[``) in headings, lists, quotes,
    tables and blocks, as ``--to markdown`` keeps them; a block in a list item stays under it."""
    out = to_text(parse_answer(MATH))
    for tex in (r"$\pi r^2$", r"\(a^2\)", r"\(x+1\)", "$x_1$", r"\[ x^2 + 1 \]", "$$a+b$$", "$$c+d$$",
                r"\(\frac{1}{2}\)", "$y=2$", r"\(z\)", "\\[\n\\int_0^1 f(x)\\,dx\n\\]", "$$ E = mc^2 $$"):  # fmt: skip
        assert tex in out, tex
        assert tex in to_markdown(parse_answer(MATH)), tex
    assert "price $5 rose" in out and "$10 and $20 stay" in out and "costs $5" in out
    assert "1. step\n   $$\n   a = b\n   $$" in out  # the item's marker opens its first line only
    assert "> quoted $$c+d$$" in out and "$y=2$ | \\(z\\)" in out


def test_text_export_keeps_formulas_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(MATH, encoding="utf-8")
    r = run_cli("render", tmp_path / "a.md", "--to", "text")
    assert r.returncode == 0, r.stderr
    assert r"$\pi r^2$" in r.stdout and "$$ E = mc^2 $$" in r.stdout and "$5" in r.stdout


# ---------------------------------------------------------------------------------------------- G10

#: (URL as given, what a BibTeX reader must read back)
URLS = [
    ("https://en.wikipedia.org/wiki/Caf%C3%A9", "https://en.wikipedia.org/wiki/Caf%C3%A9"),
    ("https://www.google.com/search?q=a%20b&hl=en", "https://www.google.com/search?q=a%20b&hl=en"),
    ("https://x.example/Café/naïve?q=é#frag", "https://x.example/Café/naïve?q=é#frag"),
    ("https://x.example/100%", "https://x.example/100%"),
    ("https://x.example/a%2Fb%25c%e9", "https://x.example/a%2Fb%25c%e9"),
    ("https://x.example/~u/a_b$c^d&e#f", "https://x.example/~u/a_b$c^d&e#f"),
    ("https://x.example/a\u2028b", "https://x.example/a%E2%80%A8b"),
    ("https://x.example/a b\u00a0c", "https://x.example/a%20b%C2%A0c"),
    ("https://x.example/{id}/x}", "https://x.example/%7Bid%7D/x%7D"),
    ("https://x.example/a\u202eb", "https://x.example/a%E2%80%AEb"),
]


def _bib_urls(urls: list[str], tmp_path: Path) -> dict[str, str]:
    """The URLs pandoc reads back from the BibTeX export of sources with ``urls``, by id."""
    reg = registry_from_data([{"id": f"s{i}", "title": f"T{i}", "url": u} for i, u in enumerate(urls)])
    text = "Claim" + "".join(f"{S}cite{D}s{i}{E}" for i in range(len(urls))) + ".\n"
    path = tmp_path / "cited.bib"
    path.write_text(to_bibtex(parse_answer(text, reg)), encoding="utf-8")
    out = subprocess.run([PANDOC, "-f", "bibtex", "-t", "csljson", str(path)], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    return {item["id"]: item.get("URL") for item in json.loads(out)}


def test_bibtex_keeps_urls_as_given(tmp_path: Path) -> None:
    """G10: an existing %XX escape is never escaped again; what must be escaped is escaped as its
    UTF-8 bytes; pandoc reads back the source's URL."""
    back = _bib_urls([u for u, _ in URLS], tmp_path)
    assert back == {f"s{i}": want for i, (_, want) in enumerate(URLS)}


def test_bibtex_reproducer_from_the_command_line(tmp_path: Path) -> None:
    sources = [{"id": "w", "title": "Café", "url": "https://en.wikipedia.org/wiki/Caf%C3%A9"},
               {"id": "q", "title": "Search", "url": "https://www.google.com/search?q=a%20b&hl=en"}]  # fmt: skip
    (tmp_path / "a.md").write_text(f"Claim {S}cite{D}w{E} and {S}cite{D}q{E}.\n", encoding="utf-8")
    (tmp_path / "a.json").write_text(json.dumps(sources), encoding="utf-8")
    r = run_cli("render", tmp_path / "a.md", "-s", tmp_path / "a.json", "--to", "bibtex")
    assert "url = {https://en.wikipedia.org/wiki/Caf%C3%A9}" in r.stdout
    assert "url = {https://www.google.com/search?q=a%20b&hl=en}" in r.stdout and "%25" not in r.stdout


# ---------------------------------------------------------------------------------------------- F01

REFUSED = r"""# Heading ftp://h.example/0

Inline [x](ftp://a.example/1) and auto <ftp://a.example/2> and bare ftp://a.example/3, FTP://A.EXAMPLE/U.

Ref [y][r] and [r]. Also [z](file:///etc/passwd), <irc://irc.example/x>, bare irc://x.example/y.

- item ftp://a.example/4 sftp://a.example/5 ssh://x.example/y javascript:alert(1) data:text/html,x
- nested > ftp://a.example/9 and xmpp:a@b.example and tel:+123 and file:///etc/hosts

> quoted (ftp://a.example/10) and *ftp://a.example/11*

[r]: ftp://a.example/6

| a | b |
|---|---|
| ftp://a.example/7 | [t](ftp://a.example/8) |

Kept: `ftp://code.example/` and [ok](https://ok.example/?u=ftp://q.example/) and the time:10 and https://fine.example/.

```
ftp://fence.example/
```
"""
READERS = ["gfm", "markdown+autolink_bare_uris", "commonmark+autolink_bare_uris", "markdown"]


def _hrefs(markdown: str, reader: str) -> list[str]:
    html = subprocess.run([PANDOC, "-f", reader, "-t", "html"], input=markdown, capture_output=True, text=True,
                          check=True).stdout  # fmt: skip
    return [h for h in re.findall(r'href="([^"]*)"', html) if not h.startswith("#")]


def _allowed(href: str) -> bool:
    return href.lower().startswith(("http://", "https://", "mailto:"))


@pytest.mark.parametrize("reader", READERS)
def test_markdown_and_json_exports_link_nothing_html_refuses(reader: str) -> None:
    """F01: no reader links a URL the allow-list refuses, in any form (inline, autolink, reference,
    bare in a paragraph, heading, list, quote or table), in the Markdown, strip and JSON exports."""
    p = parse_answer(REFUSED)
    for name, out in (
        ("markdown", to_markdown(p)),
        ("strip", to_stripped(p)),
        ("json", json.loads(to_json(p))["text"]),
    ):
        hrefs = _hrefs(out, reader)
        assert all(_allowed(h) for h in hrefs), (name, reader, hrefs)
        assert "`ftp://code.example/`" in out and "ftp://fence.example/\n" in out  # code as written
        assert "https://ok.example/?u=ftp://q.example/" in out and "time:10" in out  # allowed links as written
    assert all(_allowed(h) for h in re.findall(r'href="([^"]*)"', render_html(REFUSED)) if not h.startswith("#"))


def render_html(text: str) -> str:
    from citerender import render

    return render(text).html


def test_ai_sdk_export_carries_no_refused_link() -> None:
    """F01: the AI SDK message's text and its source parts go through the same allow-list."""
    from citerender.providers.aisdk import to_ui_message

    reg = registry_from_data([{"id": "f", "title": "F", "url": "ftp://files.example/a"},
                              {"id": "h", "title": "H", "url": "https://ok.example/"}])  # fmt: skip
    p = parse_answer(f"See ftp://a.example/1 and [x](ftp://a.example/2){S}cite{D}f{E}{S}cite{D}h{E}.\n", reg)
    msg = to_ui_message(p)
    text = msg["parts"][0]["text"]
    assert all(_allowed(h) for h in _hrefs(text, "gfm")), text
    urls = [part.get("url") for part in msg["parts"] if part["type"].startswith("source")]
    assert urls == [None, "https://ok.example/"]


def test_json_offsets_hold_through_the_guards_escapes() -> None:
    """A citation's offset in the JSON text is where it was, however many escapes come before it."""
    reg = registry_from_data([{"id": "a", "title": "A"}])
    text = f"See [x](ftp://a.example/) and ftp://b.example/ here{S}cite{D}a{E} then [y](javascript:alert(1)) end{S}cite{D}a{E}.\n"
    data = json.loads(to_json(parse_answer(text, reg)))
    clean = data["text"]
    assert "ftp\\://b.example/" in clean
    offsets = [c["clean"]["offset"] for c in data["citations"]]
    assert [clean[o - 4 : o] for o in offsets] == ["here", " end"]


def test_the_command_line_exports_keep_refused_links_text(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(REFUSED, encoding="utf-8")
    for to in ("markdown", "json", "ai-sdk"):
        r = run_cli("render", tmp_path / "a.md", "--to", to)
        assert r.returncode == 0, r.stderr
        body = r.stdout if to == "markdown" else json.dumps(json.loads(r.stdout))
        assert "ftp://a.example/3" not in body.replace("\\\\", "\\"), to
