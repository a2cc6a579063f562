"""Hardening, round three: the exact inputs of the third hostile-input review, and variants.

``S``, ``D``, ``E`` stand for U+E200, U+E202, U+E201. A hostile input ends as a clear error or a
diagnostic naming what was refused, never a hang, a traceback or a live link outside the allow-list.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citerender.cli import main
from citerender.providers.chatgpt import BrokenGraph, conversation, find_conversation
from citerender.publish.conversations import build_conversations

S, D, E = "\ue200", "\ue202", "\ue201"


# --------------------------------------------------------------------------- 1. graph walks end


#: the review's 300-byte export: no current_node, and a node that is its own child
CYCLE = {"title": "t", "mapping": {"r": {"id": "r", "children": ["a"]}, "a": {"id": "a", "parent": "r", "children": ["a"]}}}


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
        f"[x]({bare} \"title\")",
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


@pytest.mark.parametrize("style", ["footnotes", "superscript", "hovercard", "pills"])
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
