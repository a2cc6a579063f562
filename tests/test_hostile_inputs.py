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
