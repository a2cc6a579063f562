"""Never drop silently (2): a sharded ChatGPT export (``conversations-000.json``,
``conversations-001.json`` … in a zip or the folder it unzips to) that lacks a shard between the
ones it holds, or whose zip holds two members of one name (a zip allows it), is reported (CR516:
the missing shard's file, the member named twice) and read as far as it goes: every conversation
that is there gets its page. The zips are built here from the synthetic export's conversations
(tests/fixtures/chatgpt/make_export.py), named as the 2026 export names its shards."""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, run_cli

from citerender.providers.archive import export_notes, read_raw
from citerender.providers.exports import find_conversation, read_conversations

EXPORT = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text(encoding="utf-8"))  # five conversations
TITLES = [c["title"] for c in EXPORT]


def _shard(*conversations: dict[str, Any]) -> str:
    return json.dumps(list(conversations), ensure_ascii=False)


def _zip(path: Path, members: list[tuple[str, str]]) -> Path:
    """A zip of ``members`` in order; a name given twice is written twice (zipfile warns, and allows it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name": the point of the test
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in members:
                z.writestr(name, text)
            z.writestr("chat.html", "<!DOCTYPE html><html><body>chat</body></html>")
    return path


def _gapped(path: Path) -> Path:
    """Shards 000, 001 and 003: 002 (which held the fourth conversation) is missing."""
    return _zip(
        path,
        [
            ("conversations-000.json", _shard(*EXPORT[0:2])),
            ("conversations-001.json", _shard(EXPORT[2])),
            ("conversations-003.json", _shard(EXPORT[4])),
        ],
    )


def _built(out: Path) -> list[str]:
    index = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    return sorted(a.get_text(strip=True) for a in index.select("a[href^='./c/']"))


def _cr516(text: str) -> list[str]:
    return [line for line in text.splitlines() if "CR516" in line]


def test_a_missing_shard_is_named_and_the_rest_is_built(tmp_path: Path) -> None:
    export = _gapped(tmp_path / "export.zip")
    r = run_cli("build", "-v", export, tmp_path / "site")
    assert r.returncode == 0, r.stderr
    assert _built(tmp_path / "site") == sorted([TITLES[0], TITLES[1], TITLES[2], TITLES[4]])
    notes = _cr516(r.stderr)
    assert len(notes) == 1, r.stderr  # once, on the export's first conversation's page
    assert "conversations-002.json" in notes[0] and "[warning]" in notes[0] and "conversations-003.json" in notes[0]
    assert notes[0].startswith(f"  {TITLES[0]} (turn 0): CR516")
    # without -v, that page's line counts one warning more than the whole export's page has
    whole = _zip(tmp_path / "whole.zip", [("conversations-000.json", _shard(*EXPORT))])
    counts = [_warnings(run_cli("build", src, tmp_path / out).stderr) for src, out in ((whole, "w"), (export, "g"))]
    assert counts[1] == counts[0] + 1, counts


def _warnings(summary: str) -> int:
    """How many warnings the build's summary counts on the first conversation's page."""
    line = next(line for line in summary.splitlines() if line.startswith(TITLES[0]))
    return int(line.rsplit(", ", 1)[1].split()[0])


def test_the_folder_an_export_unzips_to_reports_its_gap_too(tmp_path: Path) -> None:
    folder = tmp_path / "unzipped"
    folder.mkdir()
    for name, shard in (("conversations-000.json", EXPORT[0:1]), ("conversations-002.json", EXPORT[1:2])):
        (folder / name).write_text(_shard(*shard), encoding="utf-8")
    assert [m for _, m in export_notes(folder)] == [
        "a shard is missing from the export: conversations-001.json (its shards run to conversations-002.json); "
        "the conversations in it are not shown"
    ]
    assert [c.title for c in read_conversations(folder)] == TITLES[0:2]  # what is there, in order


def test_render_of_one_conversation_says_the_export_lacks_a_shard(tmp_path: Path) -> None:
    export = _gapped(tmp_path / "export.zip")
    r = run_cli("render", export, "--conversation", TITLES[4], "-o", tmp_path / "page.html")
    assert r.returncode == 0, r.stderr
    assert len(_cr516(r.stderr)) == 1 and "conversations-002.json" in r.stderr
    # the conversation asked for may be the one the missing shard held: the error says so
    missing = run_cli("render", export, "--conversation", EXPORT[3]["id"], "-o", tmp_path / "p.html")
    assert missing.returncode == 2 and "conversations-002.json" in missing.stderr, missing.stderr


def test_two_members_of_one_name_are_reported_and_the_last_is_read(tmp_path: Path) -> None:
    export = _zip(
        tmp_path / "export.zip",
        [
            ("conversations-000.json", _shard(EXPORT[0])),
            ("conversations-001.json", _shard(EXPORT[1])),
            ("conversations-001.json", _shard(EXPORT[2])),
        ],
    )
    notes = [m for _, m in export_notes(export)]
    assert notes == ["the zip holds 2 members named 'conversations-001.json' (the last is read, the other left out)"]
    assert [c.title for c in read_conversations(export)] == [TITLES[0], TITLES[2]]  # as unzip keeps it: the last
    r = run_cli("build", "-v", export, tmp_path / "site")
    assert r.returncode == 0, r.stderr
    assert _built(tmp_path / "site") == sorted([TITLES[0], TITLES[2]])
    assert len(_cr516(r.stderr)) == 1 and "'conversations-001.json'" in r.stderr


def test_identical_copies_are_read_once_and_still_reported(tmp_path: Path) -> None:
    export = _zip(
        tmp_path / "export.zip",
        [("conversations.json", _shard(*EXPORT[:2])), ("conversations.json", _shard(*EXPORT[:2]))],
    )
    assert [m for _, m in export_notes(export)] == [
        "the zip holds 2 members named 'conversations.json' (identical copies: read once)"
    ]
    assert [c.title for c in read_conversations(export)] == TITLES[:2]


def test_an_export_whose_shards_are_whole_has_nothing_to_report(tmp_path: Path) -> None:
    export = _zip(
        tmp_path / "export.zip",
        [("conversations-000.json", _shard(*EXPORT[:3])), ("conversations-001.json", _shard(*EXPORT[3:]))],
    )
    assert export_notes(export) == [] and export_notes(FIXTURES / "chatgpt" / "conversations.json") == []
    r = run_cli("build", "-v", export, tmp_path / "site")
    assert r.returncode == 0 and "CR516" not in r.stderr, r.stderr
    assert all(code != "CR516" for c in read_conversations(export) for code, _ in c.notes)


def test_the_note_rides_on_the_first_conversation_and_changes_its_page(tmp_path: Path) -> None:
    """The first conversation carries the export's notes (its data is otherwise the same), and
    its digest changes with them: the page is built again once the shard is back."""
    gapped = _gapped(tmp_path / "gapped.zip")
    first = [data for _, data in read_raw(gapped)]
    assert [dict(d) for d in first] == [EXPORT[0], EXPORT[1], EXPORT[2], EXPORT[4]]
    convs = list(read_conversations(gapped))
    codes = [[code for code, _ in c.notes] for c in convs]
    assert codes[0] == ["CR516"] and all("CR516" not in c for c in codes[1:])
    whole = _zip(tmp_path / "whole.zip", [("conversations-000.json", _shard(*EXPORT))])
    assert next(iter(read_conversations(whole))).digest != convs[0].digest
    assert find_conversation(gapped, TITLES[2]).notes == convs[0].notes  # shown alone, it says so too


@pytest.mark.parametrize("missing", [(1,), (1, 2, 3)])
def test_the_missing_numbers_are_each_named(tmp_path: Path, missing: tuple[int, ...]) -> None:
    held = [n for n in range(5) if n not in missing]
    export = _zip(tmp_path / "export.zip", [(f"conversations-{n:03d}.json", _shard(EXPORT[n])) for n in held])
    (note,) = [m for _, m in export_notes(export)]
    for n in missing:
        assert f"conversations-{n:03d}.json" in note
    assert all(f"conversations-{n:03d}.json," not in note for n in held)
    assert ("a shard is" if len(missing) == 1 else f"{len(missing)} shards are") in note
