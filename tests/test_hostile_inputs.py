"""Hardening, round three: the exact inputs of the third hostile-input review, and variants.

``S``, ``D``, ``E`` stand for U+E200, U+E202, U+E201. A hostile input ends as a clear error or a
diagnostic naming what was refused, never a hang, a traceback or a live link outside the allow-list.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from citerender.cli import main
from citerender.options import STYLES as ALL_STYLES
from citerender.providers.exports import conversation, find_conversation
from citerender.providers.threads import BrokenGraph
from citerender.publish.conversations import build_conversations

S, D, E = "\ue200", "\ue202", "\ue201"


# --------------------------------------------------------------------------- 1. graph walks end


#: the review's 300-byte export: no current_node, and a node that is its own child
CYCLE = {
    "title": "t",
    "mapping": {"r": {"id": "r", "children": ["a"]}, "a": {"id": "a", "parent": "r", "children": ["a"]}},
}


def _msg(text: str, role: str = "assistant") -> dict[str, Any]:
    return {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}, "recipient": "all"}


def _good(cid: str = "ok") -> dict[str, Any]:
    return {
        "id": cid,
        "title": "Fine",
        "current_node": "b",
        "mapping": {
            "r": {"id": "r", "children": ["a"]},
            "a": {"id": "a", "parent": "r", "children": ["b"], "message": _msg("Hello?", "user")},
            "b": {"id": "b", "parent": "a", "children": [], "message": _msg("Hello.")},
        },
    }


BROKEN = {
    "its own child, no current_node": CYCLE,
    "a longer cycle of children": {
        "title": "t",
        "mapping": {
            "r": {"id": "r", "children": ["a"]},
            "a": {"id": "a", "parent": "r", "children": ["b"]},
            "b": {"id": "b", "parent": "a", "children": ["a"]},
        },
    },
    "parents that loop": {
        "title": "t",
        "current_node": "a",
        "mapping": {"a": {"id": "a", "parent": "b"}, "b": {"id": "b", "parent": "a", "message": _msg("x")}},
    },
    # finding 3: not a tree of dicts
    "a child id mapping to a string": {"title": "t", "mapping": {"r": {"id": "r", "children": ["a"]}, "a": "oops"}},
    "a list as a child id": {"title": "t", "mapping": {"r": {"id": "r", "children": [["a"]]}}},
    "a list as current_node": {"title": "t", "current_node": ["a"], "mapping": {"a": {"id": "a"}}},
    "a dict as a parent id": {"title": "t", "current_node": "a", "mapping": {"a": {"id": "a", "parent": {"x": 1}}}},
    "children not a list": {"title": "t", "mapping": {"r": {"id": "r", "children": "abc"}}},
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_broken_graph_is_a_clear_error_not_a_hang(name: str) -> None:
    with pytest.raises(BrokenGraph, match=r"CR506 conversation .* was skipped"):
        conversation(BROKEN[name])


def test_the_review_export_builds_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([CYCLE, _good(), *BROKEN.values()]), encoding="utf-8")
    result = build_conversations(export, tmp_path / "site")
    failures = [p.failure for p in result.pages if p.failure]
    assert len(failures) == 1 + len(BROKEN)
    assert all("CR506" in f for f in failures if f)
    built = [p for p in result.pages if p.output_hash]
    assert [p.title for p in built] == ["Fine"]
    assert (tmp_path / "site" / built[0].out).read_text(encoding="utf-8").count("Hello.") == 1
    # the command line: the same, exit 2 (an input that could not be built), each broken conversation named
    assert main(["build", str(export), str(tmp_path / "cli")]) == 2
    err = capsys.readouterr().err
    assert err.count("CR506") == 1 + len(BROKEN)
    assert "built 1 page(s), 0 unchanged" in err
    assert "Traceback" not in err


def test_render_conversation_finds_a_good_one_past_a_broken_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([CYCLE, _good()]), encoding="utf-8")
    assert find_conversation(export, "ok").title == "Fine"
    out = tmp_path / "page.html"
    assert main(["render", str(export), "--conversation", "ok", "-o", str(out)]) == 0
    assert "Hello." in out.read_text(encoding="utf-8")
    assert main(["render", str(export), "--conversation", "t", "-o", str(tmp_path / "bad.html")]) == 2
    assert "CR506" in capsys.readouterr().err
    assert not (tmp_path / "bad.html").exists()


# --------------------------------------------------------------------------- 2. one URL allow-list

#: the review's protocol handlers, and more of the family an operating system registers
HANDLERS = [
    "ms-msdt:/id PCWDiagnostic /skip force",
    "search-ms:query=x&crumb=location:\\\\attacker\\share",
    "ms-officecmd:x",
    "intent://x#Intent;end",
    "chrome://settings",
    "ftp://x.example/",
    "file:///etc/passwd",
    "smb://attacker/share",
    "vscode://file/etc/passwd",
    "tel:+15555550100",
    "ms-settings:privacy",
    "jar:http://x.example/a.jar!/",
    "data:text/html,<script>alert(1)</script>",
    "  Ms-MsDt:x",
    "ms&#45;msdt:x",
]


def _link_forms(url: str) -> list[str]:
    """Every way an answer can carry ``url`` as a link destination."""
    bare = url.strip().replace(" ", "%20").replace("\\", "%5C")
    return [
        f"[x]({bare})",
        f"[x](<{url.strip()}>)",
        f"<{bare}>",
        f"[x][r]\n\n[r]: {bare}",
        f'[x]({bare} "title")',
        f"Bare {bare} in text.",
        f"![x]({bare})",
    ]


def _answer() -> str:
    forms = [f for url in HANDLERS for f in _link_forms(url)]
    return "\n\n".join(f"{f} Claim.{S}cite{D}s{k % len(HANDLERS)}{E}" for k, f in enumerate(forms)) + "\n"


def _registry():  # type: ignore[no-untyped-def]
    from citerender.sources.model import registry_from_data

    return registry_from_data(
        [{"id": f"s{k}", "title": f"S{k}", "url": u.strip(), "lines": ["a line"]} for k, u in enumerate(HANDLERS)]
    )


def _allowed(url: str) -> bool:
    from citerender.sources.urls import allowed_link

    return allowed_link(url)


@pytest.mark.parametrize("style", ALL_STYLES)
@pytest.mark.parametrize("markdown", ["full", "commonmark"])
def test_no_href_outside_the_allow_list_in_any_style(style: str, markdown: str) -> None:
    from bs4 import BeautifulSoup

    from citerender import render

    for images in ("text", "keep"):
        r = render(_answer(), _registry(), style=style, markdown=markdown, images=images, standalone=True)
        soup = BeautifulSoup(r.html, "html.parser")
        urls = [(t.name, a, t[a]) for t in soup.find_all(True) for a in ("href", "src", "action") if t.has_attr(a)]
        assert urls, "the page has its own links"
        bad = [u for u in urls if not _allowed(u[2])]
        assert bad == [], bad
        assert "ms-msdt" in soup.get_text()  # kept as text, never dropped


def _pandoc_links(data: bytes, fmt: str) -> list[str]:
    import shutil
    import subprocess

    out = subprocess.run(
        [shutil.which("pandoc") or "pandoc", "-f", fmt, "-t", "json"], input=data, capture_output=True, check=True
    ).stdout
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("t") in ("Link", "Image"):
                found.append(node["c"][2][0])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(out))
    return found


def test_no_link_outside_the_allow_list_in_any_export() -> None:
    from markdown_it import MarkdownIt

    from citerender.rendering.exports.docx import to_docx
    from citerender.rendering.exports.json import to_json_data
    from citerender.rendering.exports.markdown import to_markdown
    from citerender.rendering.exports.parsed import parse_answer
    from citerender.rendering.exports.text import to_text

    p = parse_answer(_answer(), _registry())
    md = to_markdown(p, quotes=True)
    permissive = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    permissive.validateLink = lambda url: True  # type: ignore[method-assign]
    read_back = [
        str(t.attrs.get("href") or t.attrs.get("src"))
        for tok in permissive.parse(md)
        for t in tok.children or []
        if t.type in ("link_open", "image")
    ]
    assert [u for u in read_back if not _allowed(u)] == []
    assert [u for u in _pandoc_links(md.encode("utf-8"), "markdown") if not _allowed(u)] == []
    assert [u for u in _pandoc_links(to_docx(p), "docx") if not _allowed(u)] == []
    data = to_json_data(p)
    urls = [r.get("url") for r in data["bibliography"]]
    assert [u for u in urls if u is not None and not _allowed(u)] == []
    text = to_text(p)
    assert "ms-msdt" in text and "ms-msdt" in md


# --------------------------------------------------------------------------- 13. streams split alike

ANCHORS = [
    "a" + D + "turn0search0" + D + "turn0search0",  # the review's input
    "a" + D + "turn0search0" + D + "turn0news1 b" + D + "turn0search0.",
    "x" + D + "turn0search0 and" + D + "turn0search0" + D + "turn1search2 end",
    "Claim." + D + "turn0search0" + D + D + "turn0search0\n\nNext" + D + "turn0search1",
]


@pytest.mark.parametrize("output", ["markdown", "html"])
@pytest.mark.parametrize("text", ANCHORS, ids=range(len(ANCHORS)))
def test_bare_anchors_stream_alike_at_every_split_point(text: str, output: str) -> None:
    from citerender import StreamRenderer

    def streamed(*parts: str) -> str:
        sr = StreamRenderer(None, output=output)
        return "".join(sr.feed(p) for p in parts) + sr.close()

    whole = streamed(text)
    for k in range(len(text) + 1):
        assert streamed(text[:k], text[k:]) == whole, k
        for j in range(k, len(text) + 1, 3):
            assert streamed(text[:k], text[k:j], text[j:]) == whole, (k, j)


# --------------------------------------------------------------------------- 4. leaks in the export site

RESERVED = re.compile("[\ue200-\ue206\x00]")


def test_an_export_site_leaks_no_marker_nor_nul_anywhere(tmp_path: Path) -> None:
    conv = _good("leaky")
    conv["title"] = f"Plans {S}cite{D}turn0search0{E}"
    conv["mapping"]["a"]["message"] = _msg(
        f"Where {S}cite{D}turn0search0{E} to? \x00 :contentReference[oaicite:1]{{index=1}}", "user"
    )
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([conv]), encoding="utf-8")
    site = tmp_path / "site"
    build_conversations(export, site)
    for f in site.rglob("*"):
        if f.is_file():
            text = f.read_text(encoding="utf-8")
            assert RESERVED.search(text) is None, f.name
            assert "citeturn0search0" not in text and "contentReference" not in text, f.name
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "<title>Conversations" in index and ">Plans<" in index.replace("\n", "")
    page = next((site / "c").glob("*.html")).read_text(encoding="utf-8")
    assert "<title>Plans</title>" in page and "<h1" in page and "Plans" in page


# --------------------------------------------------------------------------- 5. special files


@pytest.mark.parametrize("what", ["answer", "sources", "front-matter sources", "build"])
def test_fifos_and_devices_are_refused_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str) -> None:
    import os

    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)  # nobody writes to it: reading it would block forever
    answer = tmp_path / "a.md"
    answer.write_text("Claim.\n", encoding="utf-8")
    if what == "answer":
        argv = ["render", str(fifo)]
    elif what == "sources":
        argv = ["render", str(answer), "-s", str(fifo)]
    elif what == "front-matter sources":
        answer.write_text(f"---\nsources: {fifo.name}\n---\nClaim.\n", encoding="utf-8")
        argv = ["render", str(answer)]
    else:
        src = tmp_path / "src"
        src.mkdir()
        os.mkfifo(src / "x.md")
        (src / "ok.md").write_text("Fine.\n", encoding="utf-8")
        argv = ["build", str(src), str(tmp_path / "out")]
    assert main(argv) == 2
    assert "not a regular file" in capsys.readouterr().err
    if what == "build":
        assert (tmp_path / "out" / "ok.html").exists()


@pytest.mark.parametrize("argv", [["render", "/dev/zero"], ["render", "ANSWER", "-s", "/dev/zero"]])
def test_dev_zero_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    answer = tmp_path / "a.md"
    answer.write_text("Claim.\n", encoding="utf-8")
    assert main([str(answer) if a == "ANSWER" else a for a in argv]) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and "Traceback" not in err


def test_stdin_is_bounded(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    from citerender.providers import inputs

    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 1000)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x" * 5000)))
    assert main(["render", "-"]) == 2
    assert "over the limit of 1,000 bytes" in capsys.readouterr().err


# --------------------------------------------------------------------------- 6. zip bombs


def _zip(tmp_path: Path, data: bytes, name: str = "export.zip") -> Path:
    import zipfile

    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("conversations.json", data)
    return path


def test_a_zip_inflating_past_the_ratio_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import time

    body = json.dumps([_good()]).encode()
    bomb = _zip(tmp_path, body[:-1] + b"," + b" " * 30_000_000 + b"]")  # 30 MB of spaces: ~30 KB zipped
    t = time.process_time()
    assert main(["build", str(bomb), str(tmp_path / "site")]) == 2
    assert time.process_time() - t < 5
    assert "zip bomb" in capsys.readouterr().err


def test_a_zip_past_the_size_limit_is_refused_and_the_limit_is_configurable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = _zip(tmp_path, json.dumps([_good()] * 3).encode())
    assert main(["build", str(export), str(tmp_path / "a"), "--max-export-bytes", "100"]) == 2
    assert "over the limit of 100" in capsys.readouterr().err
    assert main(["build", str(export), str(tmp_path / "b")]) == 2  # three conversations with one id
    assert main(["build", str(_zip(tmp_path, json.dumps([_good()]).encode(), "one.zip")), str(tmp_path / "c")]) == 0


def test_a_zip_whose_header_lies_is_stopped_while_it_inflates(tmp_path: Path) -> None:
    from citerender.errors import CiterenderError
    from citerender.providers.archive import read_raw

    bomb = _zip(tmp_path, b"[" + b" " * 5_000_000 + b"]")
    with pytest.raises(CiterenderError, match="over the limit of 1,000,000"):
        list(read_raw(bomb, max_bytes=1_000_000))  # the header says 5 MB: refused before reading
    import zipfile

    with zipfile.ZipFile(bomb) as z:  # and a member read past a limit its header does not show
        info = z.infolist()[0]
    from citerender.providers import archive

    size = info.file_size
    try:
        info.file_size = 10
        with pytest.raises(CiterenderError):
            archive._check_inflation(size, info.compress_size, 1_000_000, str(bomb))
    finally:
        info.file_size = size


# --------------------------------------------------------------------------- 7 and 14. exports pandoc reads

DEEP_QUOTES = "> " * 250 + "deep\n"
NESTED_LINKS = "[" * 20 + "x" + "](https://e.example/)" * 20 + "\n"


@pytest.mark.parametrize("text", [DEEP_QUOTES, NESTED_LINKS, "- " * 250 + "deep\n"], ids=["quotes", "links", "lists"])
def test_docx_of_deep_nesting_is_written_in_bounded_time(tmp_path: Path, text: str) -> None:
    import time

    from citerender.rendering.exports.docx import to_docx
    from citerender.rendering.exports.parsed import parse_answer

    t = time.perf_counter()
    data = to_docx(parse_answer(text))
    assert data.startswith(b"PK") and time.perf_counter() - t < 20
    assert "deep" in _pandoc_text(data, "docx") or "x" in _pandoc_text(data, "docx")


def _pandoc_text(data: bytes, fmt: str) -> str:
    import shutil
    import subprocess

    return subprocess.run(
        [shutil.which("pandoc") or "pandoc", "-f", fmt, "-t", "plain"], input=data, capture_output=True, check=True
    ).stdout.decode("utf-8")


def test_nested_links_cost_pandoc_linear_time() -> None:
    """Input x4 -> time at most x10, in CPU time of pandoc itself (its children's time): a
    quadratic reading would take x16. Linear is x4; pandoc itself measures x4.5-x7 here (its
    reading of escaped brackets is slightly superlinear, and a shared 2-core machine is noisy),
    which x6 did not always leave room for."""
    import os
    import shutil
    import subprocess

    from citerender.rendering.exports.markdown import to_markdown
    from citerender.rendering.exports.parsed import parse_answer

    def cost(depth: int) -> float:
        text = "[" * depth + "x" + "](https://e.example/)" * depth + "\n"
        md = to_markdown(parse_answer(text * 50)).encode("utf-8")
        best = float("inf")
        for _ in range(3):
            before = os.times()
            subprocess.run(
                [shutil.which("pandoc") or "pandoc", "-f", "markdown", "-t", "json"],
                input=md,
                capture_output=True,
                check=True,
            )
            after = os.times()
            best = min(
                best, after.children_user + after.children_system - before.children_user - before.children_system
            )
        return max(best, 0.01)

    assert cost(40) <= 10 * cost(10)


# --------------------------------------------------------------------------- 8. lone surrogates


@pytest.mark.parametrize("to", ["markdown", "docx", "pdf", "html", "text", "json"])
def test_a_lone_surrogate_in_a_sources_file_is_replaced_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], to: str
) -> None:
    sources = tmp_path / "s.json"
    sources.write_text(
        '{"sources": [{"id": "s1", "title": "T\\udfff", "url": "https://x.example/\\udfff", "lines": ["a \\ud800 line"]}]}',
        encoding="utf-8",
    )
    answer = tmp_path / "a.md"
    answer.write_text(f"Claim.{S}cite{D}s1{D}L1{E}\n", encoding="utf-8")
    out = tmp_path / f"out.{to}"
    assert main(["render", str(answer), "-s", str(sources), "--to", to, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "CR114" in err and "Traceback" not in err
    assert out.stat().st_size > 0


def test_a_lone_surrogate_in_a_provider_response_is_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    resp = tmp_path / "r.json"
    resp.write_text(
        '{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", '
        '"content": "Text \\udfff here.", "annotations": [{"type": "url_citation", "url_citation": {"url": '
        '"https://x.example/\\ud800", "title": "T", "start_index": 0, "end_index": 4}}]}}]}',
        encoding="utf-8",
    )
    out = tmp_path / "r.html"
    assert main(["render", str(resp), "-o", str(out)]) == 0
    assert "CR114" in capsys.readouterr().err
    assert "\ufffd" in out.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- 9. marker forms in source text


def test_marker_forms_in_source_titles_and_lines_never_show(capsys: pytest.CaptureFixture[str]) -> None:
    from bs4 import BeautifulSoup

    from citerender import render
    from citerender.rendering.exports.markdown import to_markdown
    from citerender.rendering.exports.parsed import parse_answer
    from citerender.sources.model import registry_from_data

    dirty = [
        f"{S}cite{D}turn0search0{E}",
        ":contentReference[oaicite:1]{index=1}",
        "【cite|turn0search1】",
        "citeturn0search0",
    ]
    reg = registry_from_data(
        [
            {
                "id": "s1",
                "title": "Title " + " ".join(dirty),
                "url": "https://x.example/",
                "lines": [f"Line one {d}." for d in dirty],
            }
        ]
    )
    answer = f"Claim.{S}cite{D}s1{D}L1-L4{E}\n"
    for style in ALL_STYLES:
        r = render(answer, reg, style=style)
        text = BeautifulSoup(r.html, "html.parser").get_text()
        for d in ("citeturn0search0", "contentReference", "【", "\ue200"):
            assert d not in text, (style, d)
        assert "Title" in text and "CR114" in {x.code for x in r.diagnostics}
    md = to_markdown(parse_answer(answer, reg), quotes=True)
    assert "contentReference" not in md and "【" not in md and "Line one." in md


# --------------------------------------------------------------------------- 10. --repo and hidden paths


def test_repo_never_quotes_vcs_internals_or_dotfiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = https://user:TOKEN123@git.example/r.git\n', encoding="utf-8"
    )
    (repo / ".env").write_text("SECRET=hunter2\n", encoding="utf-8")
    (repo / "app.py").write_text("print('hi')  # :contentReference[oaicite:4]{index=4}\n", encoding="utf-8")
    answer = tmp_path / "a.md"
    answer.write_text("Config.【F:.git/config†L1-L2】 Env.【F:.env†L1】 App.【F:app.py†L1】\n", encoding="utf-8")
    out = tmp_path / "a.html"
    assert main(["render", str(answer), "--repo", str(repo), "--style", "hovercard", "-o", str(out)]) == 1
    html = out.read_text(encoding="utf-8")
    err = capsys.readouterr().err
    assert "TOKEN123" not in html and "hunter2" not in html and "print(" in html
    assert "contentReference" not in html  # a file line is displayed text too (finding 9)
    assert "'.git/config' is hidden" in err and "'.env' is hidden" in err
    docx = tmp_path / "a.docx"
    main(["render", str(answer), "--repo", str(repo), "--to", "docx", "-o", str(docx)])
    assert "TOKEN123" not in _pandoc_text(docx.read_bytes(), "docx")
    assert (
        main(
            [
                "render",
                str(answer),
                "--repo",
                str(repo),
                "--repo-include-hidden",
                "--style",
                "hovercard",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert "TOKEN123" in out.read_text(encoding="utf-8")  # asked for explicitly


# --------------------------------------------------------------------------- 11. scorers


class _Scorer:
    def __init__(self, value: object) -> None:
        self.value = value

    def score(self, claim: str, evidence: str) -> float:
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value  # type: ignore[return-value]


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), -0.5, 1.5, "0.9", None, True, ValueError("boom")], ids=repr
)
def test_a_scorer_verdict_outside_0_1_leaves_the_claim_unchecked(value: object) -> None:
    from citerender import check
    from citerender.model.evidence import support_report
    from citerender.sources.model import registry_from_data

    reg = registry_from_data([{"id": "s1", "lines": ["Employees may work remotely up to three days per week."]}])
    text = f"Employees may work remotely up to three days per week.{S}cite{D}s1{D}L1{E}\n"
    report = support_report(text, reg, scorer=_Scorer(value))
    assert [c.verdict for c in report.claims] == ["unchecked"]
    diags = check(text, reg, scorer=_Scorer(value))
    assert [d.code for d in diags if d.code.startswith("CR40")] == ["CR407"]
    assert "_Scorer" in next(d.message for d in diags if d.code == "CR407")


# --------------------------------------------------------------------------- 12. MathML values


@pytest.mark.parametrize(
    "tex,absent",
    [
        (r"\rule{100000px}{100000px}", "100000px"),
        (r"\hspace{1000000em}", "1000000em"),
        (r"\color{url(javascript:alert(1))}{x}", "javascript"),
    ],
)
def test_mathml_values_are_bounded(tex: str, absent: str) -> None:
    from citerender import render

    html = render(f"A formula ${tex}$ here.\n").html
    assert absent not in html and "<math" in html


def test_mathml_keeps_sane_values() -> None:
    from citerender import render

    html = render(r"Red $\color{red}{x}$ and a rule $\rule{2em}{1em}$." + "\n").html
    assert 'mathcolor="red"' in html and 'width="2em"' in html


# --------------------------------------------------------------------------- found by the deep fuzz run


@pytest.mark.parametrize(
    "text",
    [
        "`%EE%88%80\n\ue200~~~`",  # the fuzz run's input: a code span running over a line a removal made a fence
        "`code\n\ue200# not a heading` after",
        "Text\n\ue200cite\ue202x\ue201# not a heading",
        "`a\n \ue200> not a quote`",
        "`%EE%88%80\n\ue200\n`",  # the second: a line a removal made blank
    ],
)
def test_a_removal_never_turns_a_line_into_a_block_in_the_markdown_export(text: str) -> None:
    from markdown_it import MarkdownIt

    from citerender.rendering.exports.markdown import to_markdown
    from citerender.rendering.exports.parsed import parse_answer

    md = MarkdownIt("commonmark")
    exported = to_markdown(parse_answer(text))
    shape = [t.type for t in md.parse(exported.split("\n\n[^")[0]) if t.level == 0]
    assert shape[:1] == ["paragraph_open"] and "fence" not in shape and "heading_open" not in shape, exported
    assert "%EE%88%80" not in exported.split("`")[0]  # the author's code stays code
    from citerender import StreamRenderer

    sr = StreamRenderer(None, output="markdown")  # the stream's Markdown keeps the line too
    streamed = sr.feed(text) + sr.close()
    assert streamed == exported  # the Markdown stream writes the export, note definitions included
    body = streamed.split("\n\n[^")[0]
    shape = [t.type for t in md.parse(body) if t.level == 0]
    assert shape[:1] == ["paragraph_open"] and "fence" not in shape and "heading_open" not in shape, streamed
    assert len([t for t in md.parse(body) if t.type == "paragraph_open"]) == 1, streamed


def test_a_title_holding_line_breaks_is_one_line_wherever_it_is_shown() -> None:
    """Found by the deep fuzz run: a raw CR in an ``aria-label`` reads as CR to one HTML parser and
    LF to another; a title is one line of display text."""
    from citerender import render
    from citerender.sources.model import Registry, Source

    for title, shown in (("\r", "turn0file0"), ("a\rb", "a b"), ("x\r\ny\u2028z", "x y z")):
        reg = Registry([Source("turn0file0", title=title)])
        assert f'aria-label="1: {shown}' in render("citeturn0file0", reg).html
        for style in ALL_STYLES[1:]:
            assert "\r" not in render("citeturn0file0", reg, style=style).html


@pytest.mark.parametrize(
    "text", ["`\\ue200`\ue200`", "`\\ue200`\ue200\ue200`", "`\\ue200`%EE%88%80`", "`\\ue200`\ue200%EE%88%80`"]
)
def test_a_removal_never_joins_two_backtick_runs_in_the_markdown_export(text: str) -> None:
    """Found by the deep fuzz rerun: ``\\ue200`` in a code span, a marker character, a backtick —
    removing the character made the span's closing backtick and the next one a single run."""
    from conftest import assert_no_marker

    from citerender.rendering.exports.markdown import to_markdown
    from citerender.rendering.exports.parsed import parse_answer

    assert_no_marker(to_markdown(parse_answer(text)), markdown=True)
