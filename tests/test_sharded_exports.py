"""Sharded ChatGPT exports (issue 49 §3.1): since early 2026 the export's zip holds
``conversations-000.json``, ``conversations-001.json`` … (each a JSON list in the old
``conversations.json`` shape) beside ``chat.html``, ``user.json``, ``user_settings.json`` and
``export_manifest.json`` (the layout reported in daugaard47/ChatGPT_Conversations_To_Markdown PR #23
and alexeygrigorev/chatgpt-data-viewer#1). ``build`` of the zip, and of the folder it unzips to,
makes the same site as the unsharded export: every conversation of every shard, citations linked
as before. An export that holds no conversation says so and exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, run_cli, write_folder, write_zip

from citerender.errors import CiterenderError
from citerender.providers.archive import export_members, read_raw
from citerender.providers.exports import find_conversation, is_export, read_conversations

SYNTHETIC = FIXTURES / "chatgpt" / "conversations.json"  # five conversations (see make_export.py)
REAL = FIXTURES / "chatgpt" / "real" / "best-mice.json"  # four real ones (see real/README.md)
#: what comes with the conversations in the 2026 export (their content is not read)
BESIDE = {
    "chat.html": "<!DOCTYPE html><html><body>chat</body></html>",
    "user.json": '{"id": "user-x"}',
    "user_settings.json": "{}",
    "export_manifest.json": "{}",
}


def _shards(export: Path, sizes: tuple[int, ...]) -> dict[str, str]:
    """The export's conversations cut into shards of ``sizes``, in order, as the 2026 export names them."""
    data = json.loads(export.read_text(encoding="utf-8"))
    assert sum(sizes) == len(data)
    out, at = {}, 0
    for k, n in enumerate(sizes):
        out[f"conversations-{k:03d}.json"] = json.dumps(data[at : at + n], ensure_ascii=False)
        at += n
    return out


def _site(root: Path) -> dict[str, str]:
    """Every page of a built site (its HTML), by its path."""
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.html"))}


def _build(src: Path, out: Path) -> None:
    r = run_cli("build", src, out)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(("export", "sizes"), [(SYNTHETIC, (3, 2)), (REAL, (3, 1))], ids=["synthetic", "real"])
def test_a_sharded_zip_and_its_folder_build_the_site_the_unsharded_export_builds(
    tmp_path: Path, export: Path, sizes: tuple[int, ...]
) -> None:
    files = {**_shards(export, sizes), **BESIDE}
    zipped = write_zip(tmp_path / "export.zip", files)
    folder = write_folder(tmp_path / "unzipped", files)
    _build(export, tmp_path / "whole")
    _build(zipped, tmp_path / "from-zip")
    _build(folder, tmp_path / "from-folder")
    whole = _site(tmp_path / "whole")
    count = len(json.loads(export.read_text(encoding="utf-8")))
    assert len([p for p in whole if p.startswith("c/")]) == count  # a page for every conversation
    assert _site(tmp_path / "from-zip") == whole  # the same pages, byte for byte
    assert _site(tmp_path / "from-folder") == whole
    index = BeautifulSoup(whole["index.html"], "html.parser")
    assert len(index.select(".citerender-conversations > li")) == count


def test_the_sharded_site_links_the_citations_of_conversations_in_every_shard(tmp_path: Path) -> None:
    files = {**_shards(SYNTHETIC, (3, 2)), **BESIDE}
    _build(write_zip(tmp_path / "export.zip", files), tmp_path / "site")
    pages = _site(tmp_path / "site")
    first = BeautifulSoup(pages["c/paris-trip-d863672b.html"], "html.parser")  # second conversation, shard 000
    last = BeautifulSoup(pages["c/branches-and-files-7ea9b45e.html"], "html.parser")  # fifth, shard 001
    for page in (first, last):
        numbers = page.select("sup.citerender-cite a.citerender-num")  # the citations, each a link to its entry
        entries = {a["href"] for a in page.select("li.citerender-ref a.citerender-ref-title")}
        assert numbers and all(page.find(id=a["href"][1:]) is not None for a in numbers)
        assert entries and all(h.startswith("https://") for h in entries)
    assert "https://louvre.example/tickets" in {a["href"] for a in first.select("li.citerender-ref a")}


def test_shards_are_read_in_number_order_as_one_list(tmp_path: Path) -> None:
    data = json.loads(SYNTHETIC.read_text(encoding="utf-8"))
    files = {  # written out of order, and numbered past 9: the order is the numbers'
        "conversations-010.json": json.dumps(data[4:]),
        "conversations-002.json": json.dumps(data[2:4]),
        "conversations-000.json": json.dumps(data[:2]),
        "conversations.json.index": "{}",  # seen beside the shards in a real export: not a shard
    }
    zipped = write_zip(tmp_path / "export.zip", files)
    positions = [(k, d["id"]) for k, d in read_raw(zipped)]
    assert positions == [(k, c["id"]) for k, c in enumerate(data)]
    assert [c.title for c in read_conversations(zipped)] == [c.title for c in read_conversations(SYNTHETIC)]
    assert is_export(zipped)
    assert find_conversation(zipped, "conv-branches").title == "Branches and files"
    assert export_members(["x/conversations-001.json", "x/conversations-000.json", "conversations.json.index"]) == [
        "x/conversations-000.json",
        "x/conversations-001.json",
    ]
    assert export_members(["conversations.json", "conversations-000.json"]) == ["conversations.json"]


def test_render_reads_one_conversation_of_a_sharded_zip(tmp_path: Path) -> None:
    zipped = write_zip(tmp_path / "export.zip", {**_shards(SYNTHETIC, (3, 2)), **BESIDE})
    r = run_cli("render", zipped, "--conversation", "conv-branches")
    assert r.returncode in (0, 1), r.stderr
    page = BeautifulSoup(r.stdout, "html.parser")
    assert page.find("h1").get_text(strip=True) == "Branches and files"


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("folder-without-shards", "the folder holds no conversations"),
        ("zip-without-shards", "the zip holds no conversations"),
        ("empty-shards", "the export holds no conversations"),
        ("empty-folder-shards", "the export holds no conversations"),
    ],
)
def test_an_export_without_conversations_says_so_and_exits_2(tmp_path: Path, kind: str, said: str) -> None:
    if kind == "folder-without-shards":
        src = write_folder(tmp_path / "unzipped", BESIDE)
    elif kind == "zip-without-shards":
        src = write_zip(tmp_path / "export.zip", BESIDE)
    elif kind == "empty-shards":
        src = write_zip(
            tmp_path / "export.zip", {"conversations-000.json": "[]", "conversations-001.json": "[]", **BESIDE}
        )
    else:
        src = write_folder(tmp_path / "unzipped", {"conversations-000.json": "[]", **BESIDE})
    r = run_cli("build", src, tmp_path / "site")
    assert r.returncode == 2, r.stderr
    assert said in r.stderr and "Traceback" not in r.stderr
    assert "binary" not in r.stderr
    assert not (tmp_path / "site" / "index.html").exists()


def test_a_folder_of_answers_is_still_a_folder_of_answers(tmp_path: Path) -> None:
    """A folder with one export-like name (an answer's ``user.json``) is built as answers."""
    src = write_folder(tmp_path / "answers", {"a.md": "# Hello\n\nText.\n", "user.json": "{}"})
    _build(src, tmp_path / "site")
    assert (tmp_path / "site" / "a.html").is_file()


def test_the_shards_inflate_within_one_limit_together(tmp_path: Path) -> None:
    """Each shard alone is under the limit; together they are over it: refused, naming the zip."""
    data = json.loads(SYNTHETIC.read_text(encoding="utf-8"))
    files = {f"conversations-{k:03d}.json": json.dumps([c]) for k, c in enumerate(data)}
    zipped = write_zip(tmp_path / "export.zip", files)
    biggest = max(len(t.encode()) for t in files.values())
    total = sum(len(t.encode()) for t in files.values())
    assert biggest < total // 2
    with pytest.raises(CiterenderError, match="inflate") as e:
        list(read_raw(zipped, max_bytes=total - 100))
    assert str(zipped) in str(e.value)
    assert len(list(read_raw(zipped, max_bytes=total))) == len(data)
