"""Hardening, round two: the exact inputs of the hostile-input review, and variants.

``S``, ``D``, ``E`` stand for U+E200, U+E202, U+E201. Every malformed input must end as a clear
``CiterenderError`` (exit 2 on the command line) or a diagnostic, never a traceback; growth is
measured as a time ratio (input x4 -> time at most x6), never as an absolute time.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, CliResult, assert_no_marker, best_cpu, run_cli

from citerender import CiterenderError, StreamRenderer, check, render, strip_citations
from citerender.providers import adapt
from citerender.publish.site import build_site
from citerender.sources.files import load_sources
from citerender.sources.units import html_to_lines
from citerender.sources.urls import safe_url

S, D, E = "\ue200", "\ue202", "\ue201"


def cli(*args: str, stdin: str | None = None) -> CliResult:
    return run_cli(*args, stdin=stdin)


# --------------------------------------------------------------------------- 2. linear time


_best = partial(best_cpu, repeat=5)  # (by this name: the growth tests' fresh interpreters call it)


def _stream(output: str, text: str, size: int = 20) -> None:
    sr = StreamRenderer(None, output=output)
    for i in range(0, len(text), size):
        sr.feed(text[i : i + size])
    sr.close()


GROWTH: dict[str, tuple[Callable[[int], Callable[[], object]], int]] = {
    # name: (input of size n -> the work, n)
    "strip of entity[ repeated": (lambda n: lambda: strip_citations("entity[" * n), 20_000),
    "one paragraph of flagged markers": (lambda n: lambda: render("…marker.citeturn0search0\n" * n), 1_500),
    "streamed HTML, one long line": (lambda n: lambda: _stream("html", "word " * n), 8_000),
    "streamed Markdown, a growing bare anchor": (lambda n: lambda: _stream("markdown", "x " + D + "a" * n), 40_000),
    "streamed Markdown, one long line": (lambda n: lambda: _stream("markdown", "word `code` " * n), 10_000),
    "units of deeply nested HTML": (lambda n: lambda: html_to_lines("<div>" * n + "<p>x</p>" * n), 1_000),
    "entity[ then many [": (lambda n: lambda: strip_citations("entity[" + "[" * n), 50_000),
    "a sources file of many sources": (lambda n: _sources_file(n), 1_000),
    # round three: the stream's code-span tracker and bare-anchor hold, the exports' nesting bound
    "streamed Markdown, a code span never closed": (lambda n: lambda: _stream("markdown", "` " + "word " * n), 10_000),
    "streamed Markdown, bare anchors one after another": (
        lambda n: lambda: _stream("markdown", ("Claim " + D + "turn0search0" + D + "turn0news1 ") * n),
        1_000,
    ),
    "Markdown export of nested brackets": (
        lambda n: lambda: _export("[" * n + "x" + "](https://e.example/)" * n),
        1_000,
    ),
}


def _export(text: str) -> str:
    from citerender.rendering.exports.markdown import to_markdown
    from citerender.rendering.exports.parsed import parse_answer

    return to_markdown(parse_answer(text))


def _sources_file(n: int) -> Callable[[], object]:
    """Loading a registry, each source's line found for error messages (it was searched for
    from the start of the file: quadratic in the sources)."""
    import json

    from citerender.sources.model import registry_from_data

    data = {"sources": [{"id": f"s{i}", "title": f"Source {i}", "lines": ["text"] * 5} for i in range(n)]}
    raw = json.dumps(data, indent=1)
    return lambda: registry_from_data(json.loads(raw), raw=raw)


@pytest.mark.parametrize("name", list(GROWTH))
def test_growth_is_linear(name: str) -> None:
    """Input x4 -> time at most x6 (time, not call counts: str.count and slicing count too).

    Measured in a fresh interpreter, so what earlier tests left in this process's heap cannot
    blur the ratio."""
    code = (
        "import sys; sys.path.insert(0, 'tests'); import test_hardening as t\n"
        f"make, n = t.GROWTH[{name!r}]\n"
        "small, large = make(n), make(4 * n)\n"
        "small()\n"
        "print(t._best(large) / max(t._best(small), 1e-4))\n"
    )
    ratios = []
    for _ in range(3):  # a quadratic path is x16 every time; a busy machine is x6.5 now and then
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        ratios.append(float(r.stdout.strip().splitlines()[-1]))
        if ratios[-1] <= 6.0:
            break
    assert min(ratios) <= 6.0, f"{name}: x4 input took x{min(ratios):.1f} time (best of {len(ratios)} runs)"


# --------------------------------------------------------------------------- 3. YAML alias bombs


def test_yaml_aliases_are_refused_in_sources(tmp_path: Path) -> None:
    lines = "\n".join(f"  - line {i}" for i in range(1000))
    srcs = "\n".join(f"- id: s{i}\n  lines: *big" for i in range(500))
    f = tmp_path / "bomb.sources.yaml"
    f.write_text(f"- id: base\n  lines: &big\n{lines}\n{srcs}\n", encoding="utf-8")
    with pytest.raises(CiterenderError, match=r"aliases \(\*name\) are not accepted") as e:
        load_sources(f)
    assert e.value.line is not None and e.value.line > 1000
    r = cli("check", "-", "--sources", str(f), stdin="A.\n")
    assert r.returncode == 2 and "aliases" in r.stderr and "Traceback" not in r.stderr


def test_yaml_alias_bomb_in_front_matter_is_refused(tmp_path: Path) -> None:
    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefg"):
        prev = "abcdefg"[i]
        levels.append(f"{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]")
    src = tmp_path / "src"
    src.mkdir()
    (src / "bomb.md").write_text("---\n" + "\n".join(levels) + "\ntitle: *g\n---\n# Hi\n", encoding="utf-8")
    (src / "fine.md").write_text("# Fine\n\nText.\n", encoding="utf-8")
    result = build_site(src, tmp_path / "out")
    bomb = next(p for p in result.pages if p.rel == "bomb.md")
    assert bomb.failure is not None and "aliases" in bomb.failure
    assert (tmp_path / "out" / "fine.html").is_file()
    assert sum(f.stat().st_size for f in (tmp_path / "out").rglob("*") if f.is_file()) < 1_000_000


def test_long_titles_and_urls_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps([{"id": "a", "title": "x" * 3000}]), encoding="utf-8")
    with pytest.raises(CiterenderError, match="'title' has 3,000 characters, over the limit"):
        load_sources(f)


# --------------------------------------------------------------------------- 4. the manifest


@pytest.mark.parametrize("key", ["../victim/notes.txt", "/tmp/citerender-victim.txt", "a/../../x", "C:/x"])
def test_a_manifest_path_outside_the_output_folder_is_refused(tmp_path: Path, key: str) -> None:
    src, out, victim = tmp_path / "src", tmp_path / "out", tmp_path / "victim"
    src.mkdir()
    victim.mkdir()
    (src / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    (victim / "notes.txt").write_text("keep me", encoding="utf-8")
    build_site(src, out)
    manifest = out / ".citerender-manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    import hashlib

    data["files"][key] = {"output_hash": hashlib.sha256(b"keep me").hexdigest()}
    manifest.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CiterenderError, match="outside the output folder"):
        build_site(src, out)
    assert (victim / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_a_manifest_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.md").write_text("# A\n", encoding="utf-8")
    build_site(src, out)
    (out / ".citerender-manifest.json").write_text('{"files": []}', encoding="utf-8")
    with pytest.raises(CiterenderError, match="manifest is unreadable"):
        build_site(src, out)


# --------------------------------------------------------------------------- 5. no traceback

HOSTILE_ANSWERS = {
    "5000-digit locator": "A.citeturn0search0L" + "9" * 5000 + " B.",
    "5000-digit canonical locator": f"A.{S}cite{D}a{D}L{'9' * 5000}{E}",
    "entity[ and 1,000 [": "entity[" + "[" * 1000,
    "canonical entity and 1,000 [": f"{S}entity{D}" + "[" * 1000 + E,
    "lone surrogate in an entity": 'Hi entity["people", "x\\ud800"] there.',
}


@pytest.mark.parametrize("name", list(HOSTILE_ANSWERS))
def test_hostile_answers_render_and_check_without_a_traceback(name: str, tmp_path: Path) -> None:
    text = HOSTILE_ANSWERS[name]
    for style in ("footnotes", "superscript", "hovercard"):
        assert_no_marker(render(text, style=style).html)
    check(text)
    answer = tmp_path / "a.md"
    answer.write_text(text, encoding="utf-8")
    for args in (
        ["render", str(answer)],
        ["check", str(answer)],
        ["strip", str(answer)],
        ["render", str(answer), "--to", "markdown"],
        ["render", str(answer), "--to", "json"],
    ):
        r = cli(*args)
        assert r.returncode in (0, 1), (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_a_hostile_answer_does_not_abort_a_build(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i, text in enumerate(HOSTILE_ANSWERS.values()):
        (src / f"bad{i}.md").write_text(text, encoding="utf-8")
    (src / "good.md").write_text("# Good\n", encoding="utf-8")
    result = build_site(src, tmp_path / "out")
    assert not result.failed
    assert (tmp_path / "out" / "index.html").is_file() and len(result.pages) == len(HOSTILE_ANSWERS) + 1


def test_nested_entities_in_a_url_do_not_recurse() -> None:
    assert safe_url("&" + "amp;" * 600 + "#106;avascript:alert(1)") is None
    assert safe_url("https://example.com/?a=1&amp;b=2") == "https://example.com/?a=1&amp;b=2"


@pytest.mark.parametrize(
    "suffix,content",
    [
        (".json", "[" * 100_000 + "]" * 100_000),
        (".yaml", "- " * 5_000 + "x"),
        (".toml", "a = " + "[" * 5_000 + "]" * 5_000),
    ],
)
def test_deeply_nested_sources_files_are_input_errors(tmp_path: Path, suffix: str, content: str) -> None:
    f = tmp_path / f"s{suffix}"
    f.write_text(content, encoding="utf-8")
    r = cli("check", "-", "--sources", str(f), stdin="A.\n")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr


def _responses(text: object, *annotations: object) -> dict[str, object]:
    """An OpenAI Responses object holding one output text with ``annotations``."""
    part = {"type": "output_text", "text": text, "annotations": list(annotations)}
    return {"object": "response", "output": [{"type": "message", "content": [part]}]}


URL_CITATION = {"type": "url_citation", "url": "https://a.example"}
MALFORMED_RESPONSES = [
    {"object": "response", "output": [1]},
    {"object": "response", "output": [{"type": "message", "content": [1]}]},
    _responses("x", 1),
    _responses("abc", {**URL_CITATION, "start_index": "a", "end_index": 2}),
    _responses("abc", {**URL_CITATION, "start_index": 0, "end_index": 10**400}),
    {"object": "response", "output": "nope"},
    {"object": "chat.completion", "choices": [1]},
    {"object": "chat.completion", "choices": [{"message": 1}]},
    {
        "object": "chat.completion",
        "choices": [{"message": {"content": "x", "annotations": [{"type": "url_citation"}]}}],
    },
    {"object": "chat.completion", "choices": [{"message": {"content": 5}}]},
    {"type": "message", "content": [1]},
    {"type": "message", "content": [{"type": "text", "text": "x", "citations": [1]}]},
    {
        "type": "message",
        "content": [{"type": "text", "text": "x", "citations": [{"type": "char_location", "document_index": "z"}]}],
    },
    {"type": "message", "content": [{"type": "text", "text": 7}]},
    {"object": "thread.message", "content": [1]},
    {"object": "thread.message", "content": [{"type": "text", "text": {"value": "x", "annotations": [1]}}]},
    {"object": "thread.message", "content": [{"type": "text", "text": "x"}]},
    [{"type": "response.output_text.delta", "output_index": "x"}],
]


@pytest.mark.parametrize("data", MALFORMED_RESPONSES, ids=[f"shape{i}" for i in range(len(MALFORMED_RESPONSES))])
def test_malformed_provider_responses_are_input_errors(data: object, tmp_path: Path) -> None:
    with contextlib.suppress(CiterenderError):
        adapt(data)
    f = tmp_path / "r.json"
    f.write_text(json.dumps(data), encoding="utf-8")
    r = cli("render", str(f))
    assert r.returncode in (0, 2) and "Traceback" not in r.stderr, r.stderr


def test_a_deeply_nested_response_is_an_input_error(tmp_path: Path) -> None:
    f = tmp_path / "r.json"
    f.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    r = cli("render", str(f))
    assert r.returncode == 2 and "nested too deeply" in r.stderr, r.stderr


# --------------------------------------------------------------------------- 6. leaks


def test_stream_html_and_its_bibliography_remove_residue_from_metadata() -> None:
    from citerender.sources.model import registry_from_data

    hostile = ["T\ue200itle", "T\\ue200itle", "T%EE%88%80itle"]
    reg = registry_from_data(
        [{"id": f"s{i}", "title": t, "url": f"https://h{i}.example/{t}", "lines": [t]} for i, t in enumerate(hostile)]
    )
    text = " ".join(f"Claim.{S}cite{D}s{i}{D}L1{E}" for i in range(len(hostile))) + "\n"
    for style in ("footnotes", "superscript", "hovercard"):
        sr = StreamRenderer(reg, output="html", style=style)
        out = sr.feed(text) + sr.close() + sr.bibliography_html()
        assert_no_marker(out, style)


def test_front_matter_titles_with_markers_are_clean_everywhere(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.md").write_text(f"---\ntitle: 'Hi {S}cite{D}x{E} \\ue200 &#xE200 there'\n---\nText.\n", encoding="utf-8")
    build_site(src, out)
    for f in ("a.html", "index.html", ".citerender-manifest.json"):
        assert_no_marker((out / f).read_text(encoding="utf-8"), f)


def test_report_domains_and_messages_name_markers(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps([{"id": "a", "url": "https://ex\ue200ample.com/x"}]), encoding="utf-8")
    r = cli("check", "-", "--sources", str(f), "--report", "--format", "json", stdin=f"A.{S}cite{D}a{E}\n")
    assert_no_marker(r.stdout + r.stderr, "check --report")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "a\ue200b"}]), encoding="utf-8")
    r = cli("check", "-", "--sources", str(bad), stdin="A.\n")
    assert r.returncode == 2 and "{U+E200}" in r.stderr
    assert_no_marker(r.stderr, "error message")


@pytest.mark.parametrize("ref", ["&#x0E200;", "&#057856;", "&#X0e200;", "&#xE200", "&#57856"])
def test_padded_and_unterminated_numeric_references_leak_nowhere(ref: str, tmp_path: Path) -> None:
    text = f"A {ref} claim.{S}cite{D}a{E} and {ref}cite{ref.replace('200', '202')}b{ref.replace('200', '201')} end.\n"
    f = tmp_path / "a.md"
    f.write_text(text, encoding="utf-8")
    for to in ("html", "markdown", "text", "json", "csl-json"):
        r = cli("render", str(f), "--to", to)
        assert_no_marker(r.stdout, to)
    r = cli("strip", str(f))
    assert_no_marker(r.stdout, "strip")
    sr = StreamRenderer(None, output="markdown")
    assert_no_marker("".join(sr.feed(c) for c in text) + sr.close(), "streamed markdown")


# --------------------------------------------------------------------------- 7. outside the source folder


def test_build_refuses_links_and_sources_outside_the_source_folder(tmp_path: Path) -> None:
    secret, src = tmp_path / "secret", tmp_path / "src"
    secret.mkdir()
    src.mkdir()
    (secret / ".env").write_text("API_KEY=hunter2\n", encoding="utf-8")
    (secret / "creds.json").write_text(json.dumps([{"id": "k", "title": "hunter2"}]), encoding="utf-8")
    (src / "notes.md").symlink_to(secret / ".env")
    (src / "a.md").write_text("---\nsources: ../secret/creds.json\n---\nA.\n", encoding="utf-8")
    (src / "b.md").write_text(f"---\nsources: {secret / 'creds.json'}\n---\nB.\n", encoding="utf-8")
    (src / "ok.md").write_text("# OK\n", encoding="utf-8")
    result = build_site(src, tmp_path / "out")
    failures = {p.rel: p.failure for p in result.pages if p.failure}
    assert set(failures) == {"notes.md", "a.md", "b.md"}, failures
    assert "hunter2" not in "".join(f.read_text(encoding="utf-8") for f in (tmp_path / "out").rglob("*.html"))
    allowed = build_site(src, tmp_path / "out2", follow_outside=True)
    assert not allowed.failed


# --------------------------------------------------------------------------- 8. themes


def test_theme_templates_run_sandboxed(tmp_path: Path) -> None:
    theme = tmp_path / "evil"
    theme.mkdir()
    (theme / "style.css").write_text("", encoding="utf-8")
    (theme / "page.html.j2").write_text("{{ cycler.__init__.__globals__.os.popen('id').read() }}", encoding="utf-8")
    with pytest.raises(CiterenderError, match=r"SecurityError: access to attribute '__init__'.* is unsafe"):
        render("A.", theme=theme, standalone=True)
    r = cli("render", "-", "--theme", str(theme), "--standalone", stdin="A.\n")
    assert r.returncode == 2 and "SecurityError" in r.stderr and "Traceback" not in r.stderr


def test_theme_base_must_be_a_builtin_name(tmp_path: Path) -> None:
    theme = tmp_path / "t"
    theme.mkdir()
    (theme / "theme.toml").write_text('base = "../../etc"\n', encoding="utf-8")
    with pytest.raises(CiterenderError, match="base theme"):
        render("A.", theme=theme)


# --------------------------------------------------------------------------- 10. smaller ones


def test_two_answers_for_one_page_are_refused_with_both_names(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text("# A\n", encoding="utf-8")
    (src / "index.page.md").write_text("# B\n", encoding="utf-8")
    with pytest.raises(CiterenderError, match=r"index\.md and index\.page\.md would both be written"):
        build_site(src, tmp_path / "out")


def test_index_links_are_encoded_relative_urls(tmp_path: Path) -> None:
    from bs4 import BeautifulSoup

    src = tmp_path / "src"
    src.mkdir()
    for name in ("javascript:alert(1).md", "a?b.md", "c#d.md", "e%25f.md"):
        (src / name).write_text("# T\n", encoding="utf-8")
    build_site(src, tmp_path / "out")
    index = BeautifulSoup((tmp_path / "out" / "index.html").read_text(encoding="utf-8"), "html.parser")
    hrefs = sorted(a["href"] for a in index.select("ul.citerender-index a"))
    assert hrefs == ["./a%3Fb.html", "./c%23d.html", "./e%2525f.html", "./javascript%3Aalert%281%29.html"]


def test_render_and_strip_refuse_to_overwrite_their_input(tmp_path: Path) -> None:
    a, s = tmp_path / "a.md", tmp_path / "sources.json"
    a.write_text(f"A.{S}cite{D}x{E}\n", encoding="utf-8")
    s.write_text(json.dumps([{"id": "x", "title": "X"}]), encoding="utf-8")
    for args in (
        ["render", str(a), "-o", str(a)],
        ["render", str(a), "-s", str(s), "--to", "csl-json", "-o", str(s)],
        ["strip", str(a), "-o", str(a)],
    ):
        r = cli(*args)
        assert r.returncode == 2 and "the output file is an input file" in r.stderr, args
    assert a.read_text(encoding="utf-8").startswith("A.") and json.loads(s.read_text(encoding="utf-8"))


def test_diagnostics_show_terminal_escapes_instead_of_sending_them(tmp_path: Path) -> None:
    f = tmp_path / "a.md"
    f.write_text(f"Claim.{S}cite{D}\x1b]0;pwned\x07{E} {S}\x1b[2J{E}\n", encoding="utf-8")
    r = cli("check", str(f))
    assert "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout + r.stderr


def test_bidi_controls_cannot_reverse_the_domain_and_titles_are_isolated() -> None:
    from bs4 import BeautifulSoup

    from citerender.sources.model import registry_from_data

    reg = registry_from_data([{"id": "a", "title": "\u202eevil", "url": "https://xn--\u202eexample.com/"}])
    html = render(f"A.{S}cite{D}a{E}", reg, style="hovercard").html
    doc = BeautifulSoup(html, "html.parser")
    assert doc.select_one(".citerender-ref-title bdi") is not None
    assert doc.select_one(".citerender-card-title bdi") is not None
    assert "\u202e" not in "".join(d.get_text() for d in doc.select(".citerender-ref-domain"))


def test_markdown_and_json_exports_escape_raw_html_unless_allowed(tmp_path: Path) -> None:
    f = tmp_path / "a.md"
    f.write_text(
        "<script>alert(1)</script>\n\nHi <img src=x onerror=alert(1)> there.\n\n`<b>code</b>`\n", encoding="utf-8"
    )
    for to in ("markdown", "json"):
        out = cli("render", str(f), "--to", to).stdout
        html = subprocess.run(
            ["pandoc", "-f", "markdown", "-t", "html"],
            input=json.loads(out)["text"] if to == "json" else out,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "<script" not in html and "<img" not in html and "&lt;b&gt;code&lt;/b&gt;" in html, to
    allowed = cli("render", str(f), "--to", "markdown", "--allow-html").stdout
    assert "<script>alert(1)</script>" in allowed


# --------------------------------------------------------------------------- 9. streams and splits


@pytest.mark.parametrize(
    "first,second",
    [
        ("A \\u{", "E200} B"),
        ("A citeturn0search1L1\u2013", "L2 B"),
        ("A 【4:0†source 【", "6†L1】 B"),
        ("A &#xE201", "; B"),
        ("A [x](java%EE%88%", "80script:alert(1)) B"),
    ],
)
def test_streamed_markdown_does_not_depend_on_the_split(first: str, second: str) -> None:
    whole = StreamRenderer(None, output="markdown")
    one = whole.feed(first + second) + whole.close()
    split = StreamRenderer(None, output="markdown")
    two = split.feed(first) + split.feed(second) + split.close()
    assert two == one
    assert_no_marker(two)
    assert "【4:0†source" not in two or "【4:0†source 【" in first


def test_the_temporary_file_never_follows_a_planted_link(tmp_path: Path) -> None:
    from citerender.jobs.files import write_atomic

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    target = tmp_path / "out.html"
    (tmp_path / f".out.html.{os.getpid()}.tmp").symlink_to(victim)  # the old, predictable name
    write_atomic(target, "page")
    assert victim.read_text(encoding="utf-8") == "keep me" and target.read_text(encoding="utf-8") == "page"
    assert all(not p.name.endswith(".tmp") or p.is_symlink() for p in tmp_path.iterdir())


def test_a_device_or_pipe_as_output_is_written_in_place_never_replaced(tmp_path: Path) -> None:
    """``-o /dev/null`` (or a named pipe) is written to, not renamed over: a rename would leave a
    regular file where /dev/null was, and every program opening it would break (it did, here)."""
    import stat
    import threading

    from citerender.jobs.files import write_atomic

    r = subprocess.run(
        [sys.executable, "-m", "citerender.cli", "render", str(EXAMPLES / "handbook" / "answer.md"), "--sources",
         str(EXAMPLES / "handbook" / "answer.sources.json"), "-o", "/dev/null"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null must stay a device"
    assert not list(Path("/dev").glob(".null.*.tmp"))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, "through the pipe")
    reader.join(timeout=10)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
