"""Round four of the hostile-input review, for chat exports and what a built site holds (issue 46:
F07 damaged or lying zips, F10 lone surrogates, G26/F08 marker forms in any file of a site)."""

from __future__ import annotations

import io
import json
import os
import re
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest
from conftest import RESERVED_OR_ESCAPE, expand, run_cli
from hypothesis import given
from hypothesis import strategies as st

from citerender import CiterenderError
from citerender.providers.archive import read_raw
from citerender.providers.exports import read_conversations
from citerender.publish.conversations import build_conversations
from citerender.publish.shown import shown_markup, shown_text
from citerender.publish.site import build_site

S, D, E = "\ue200", "\ue202", "\ue201"
REPRODUCERS = Path(__file__).resolve().parent.parent.parent / "shared" / "reproducers" / "round4"


def _conversation(i: int, *, title: str = "A trip", model: str = "gpt-4o", msg_model: str = "gpt-4o",
                  user: str = "Where to?", answer: str = "Paris.", ref_title: str = "Paris guide",
                  ref_url: str = "https://example.com/paris") -> dict[str, Any]:  # fmt: skip
    """One ChatGPT conversation: a question, an answer citing one page through a content reference."""
    marker = f"{S}cite{D}turn0search0{E}"
    item = {"title": ref_title, "url": ref_url, "attribution": "ex"}
    start, end = len(answer), len(answer) + len(marker)
    ref = {"matched_text": marker, "start_idx": start, "end_idx": end, "type": "grouped_webpages", "items": [item]}
    meta = {"model_slug": msg_model, "content_references": [ref]}
    node = {"recipient": "all"}
    return {
        "id": f"c{i}", "title": title, "create_time": 1_700_000_000 + i, "update_time": 1_700_000_000 + i,
        "default_model_slug": model, "current_node": "a",
        "mapping": {
            "r": {"id": "r", "parent": None, "children": ["u"]},
            "u": {"id": "u", "parent": "r", "children": ["a"], "message": {
                "author": {"role": "user"}, "content": {"content_type": "text", "parts": [user]}, **node,
                "metadata": {}}},
            "a": {"id": "a", "parent": "u", "children": [], "message": {
                "author": {"role": "assistant"}, "content": {"content_type": "text", "parts": [answer + marker]},
                **node, "metadata": meta}},
        },
    }  # fmt: skip


def _zip(data: bytes, method: int = zipfile.ZIP_DEFLATED) -> bytearray:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        z.writestr("conversations.json", data)
    return bytearray(b.getvalue())


def _patch(buf: bytearray, local: int, central: int, fmt: str, value: int) -> bytearray:
    """Set one field in the member's local header and in the central directory."""
    struct.pack_into(fmt, buf, buf.find(b"PK\x03\x04") + local, value)
    struct.pack_into(fmt, buf, buf.find(b"PK\x01\x02") + central, value)
    return buf


# --------------------------------------------------------------------------- F07: damaged or lying zips


def _big_export() -> bytes:
    """About 6 MB of conversations, compressible only a few times (no zip bomb)."""
    words = os.urandom(3_000_000).hex()
    return json.dumps([_conversation(i, user=words[i * 2000 : i * 2000 + 2000]) for i in range(3000)]).encode()


def _damaged() -> dict[str, bytearray]:
    big = _big_export()
    out = {
        # the reproducer: the headers say 1 KB, the member inflates to 6 MB (zipfile stops at the
        # declared size, and its CRC does not match)
        "understated": _patch(_zip(big), 22, 24, "<I", 1024),
        "understated-stored": _patch(_patch(_zip(big, zipfile.ZIP_STORED), 22, 24, "<I", 1024), 18, 20, "<I", 1024),
        "encrypted": _patch(_zip(big), 6, 8, "<H", 1),
        "unknown-method": _patch(_zip(big), 8, 10, "<H", 99),
    }
    forged = _patch(_zip(big), 22, 24, "<I", 1024)  # and a CRC that matches the first KB: JSON cut short
    out["understated-crc"] = _patch(forged, 14, 16, "<I", zipfile.crc32(big[:1024]))
    b = _zip(big)
    out["truncated"] = b[: len(b) // 2] + b[-200:]
    b = _zip(big)
    start = b.find(b"PK\x03\x04") + 30 + len("conversations.json")
    b[start + 100 : start + 400] = b"\xff" * 300
    out["corrupt-deflate"] = b
    b = _zip(big)
    j = b.find(b"PK\x01\x02")
    b[j + 4 : j + 40] = bytes(36)
    out["central-directory"] = b
    for name, method in (("bzip2", zipfile.ZIP_BZIP2), ("lzma", zipfile.ZIP_LZMA)):
        b = _zip(big, method)
        start = b.find(b"PK\x03\x04") + 30 + len("conversations.json")
        b[start + 50 : start + 300] = bytes(250)
        out[f"corrupt-{name}"] = b
    return out


DAMAGED: dict[str, bytearray] = {}


@pytest.mark.parametrize(
    "kind",
    ["understated", "understated-stored", "understated-crc", "encrypted", "unknown-method", "truncated",
     "corrupt-deflate", "central-directory", "corrupt-bzip2", "corrupt-lzma"],
)  # fmt: skip
def test_a_damaged_or_lying_zip_is_a_clear_input_error(tmp_path: Path, kind: str) -> None:
    if not DAMAGED:
        DAMAGED.update(_damaged())
    z = tmp_path / "export.zip"
    z.write_bytes(bytes(DAMAGED[kind]))
    r = run_cli("build", z, tmp_path / "site")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert str(z) in r.stderr and r.stderr.count("\n") == 1, r.stderr  # one line, naming the zip
    assert "damaged or does not match its headers" in r.stderr or "invalid JSON in the export" in r.stderr
    assert not (tmp_path / "site" / "index.html").exists()
    with pytest.raises(CiterenderError):
        list(read_conversations(z))


# --------------------------------------------------------------------------- F10: lone surrogates


def _lone_export() -> list[dict[str, Any]]:
    """Lone surrogates in every field F10 names (JSON escapes: they cannot be written as UTF-8)."""
    return [
        _conversation(0, title="Lone \udc00 low \ud800 high", user="user \udc01 words \ud801",
                      answer="An answer \udfff with \ud83d.", ref_title="Ref \udc02 title",
                      ref_url="https://example.com/\ud802x", msg_model="gpt\udc03"),
        _conversation(1, title="Plain", user="Hello \U0001f600", answer="Emoji \U0001f600 pair."),
    ]  # fmt: skip


@pytest.mark.parametrize("zipped", [False, True])
def test_lone_surrogates_in_an_export_are_replaced_and_reported(tmp_path: Path, zipped: bool) -> None:
    text = json.dumps(_lone_export())  # ensure_ascii: every surrogate, paired or not, is an escape
    assert "\\udc00" in text and "\\ud83d\\ude00" in text
    export = tmp_path / ("export.zip" if zipped else "conversations.json")
    export.write_bytes(bytes(_zip(text.encode())) if zipped else text.encode())
    r = run_cli("build", export, tmp_path / "site", "-v")
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr + r.stdout, r.stderr
    out = r.stdout + r.stderr
    assert "CR114" in out and "lone surrogates replaced by U+FFFD" in out
    lone_lines = [line for line in out.splitlines() if "CR114" in line and "surrogate" in line]
    assert all("Lone" in line for line in lone_lines)  # the conversation that had them, not the other
    pages = {p.name: p.read_bytes() for p in (tmp_path / "site").rglob("*") if p.is_file()}
    for data in pages.values():
        data.decode("utf-8")  # valid UTF-8 everywhere
    every = b"".join(pages.values()).decode("utf-8")
    assert "Lone \ufffd low \ufffd high" in every and "\U0001f600" in every  # pairs kept, lone ones replaced


def test_lone_surrogates_are_read_as_json_reads_them_at_any_offset(tmp_path: Path) -> None:
    """Wherever a lone surrogate (or a pair, or an escaped backslash before ``ud800``) falls
    against the reader's chunks, the export reads as ``json.loads`` reads it."""
    f = tmp_path / "conversations.json"
    for escape in ("\\udc00", "\\ud800", "\\ud83d\\ude00", "\\\\ud800", "\\ud800\\ud800", "\\udc00\\ud800"):
        for shift in range(-14, 15, 2):
            pad = "x" * (65536 - len('[{"id": "c0", "title": "') + shift)
            text = '[{"id": "c0", "title": "' + pad + escape + 'y"}, {"id": "c1", "title": "' + escape + '"}]'
            f.write_text(text, encoding="ascii")
            assert [d for _, d in read_raw(f)] == json.loads(text), (escape, shift)


def test_invalid_utf8_in_an_export_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "conversations.json"
    f.write_bytes(b'[{"id": "c0", "title": "caf\xe9 \xed\xa0\x80", "mapping": {}}]')
    r = run_cli("build", f, tmp_path / "site")
    assert r.returncode == 2 and "Traceback" not in r.stderr and str(f) in r.stderr, r.stderr


# --------------------------------------------------------------------------- G26 + F08: nothing in any site file

#: every form a marker takes: raw, escaped, visible (at a boundary, and glued to a word), residue,
#: a NUL and U+E205, and pairs whose removal would leave another form behind
FORMS = [
    f"{S}cite{D}turn0search0{E}", "citeturn0search0", "gpt-4ociteturn0search0", "\\ue200cite\\ue202turn1news2\\ue201",
    ":contentReference[oaicite:1]", ":contentReference[oaicite:8]{index=8}", "&#xE200;", "&#57856;", "%EE%88%80",
    "\\u{E200}", "\x00", "\ue205", "\ue206", "\u3010cite|turn2search5\u3011", "\u30106\u2020L9-L11\u3011",
    "\\ue20\\ue2000", "citeturn0\ue200search0", "\u3010cite|turn2\ue200search5\u3011", "line\nbreak", "\u2028",
    "Parisciteturn0search0citeturn1news2",
]  # fmt: skip
VISIBLE = re.compile(
    r"[\x00\ue200-\ue206]|\\u0000|\\ue20[0-6]|cite(?:turn\d+[a-z]+\d|\\u)|contentReference|oaicite|\u3010\w*\||\u2020L\d",
    re.I,
)


def _assert_clean_site(site: Path) -> None:
    files = [p for p in site.rglob("*") if p.is_file()]
    assert any(p.name == ".citerender-manifest.json" for p in files)
    for p in files:
        text = p.read_bytes().decode("utf-8")
        for m in (VISIBLE.search(text), RESERVED_OR_ESCAPE.search(text)):
            assert m is None, f"{p.relative_to(site)}: {text[max(0, m.start() - 60) : m.end() + 40]!r}"


def test_the_reproducers_model_slug_leaves_no_marker_in_the_site(tmp_path: Path) -> None:
    """G26 as reported: a marker in the model slug (default and per message)."""
    data = [_conversation(0, model="gpt-4o" + FORMS[0], msg_model="gpt-4ociteturn0search0")]
    export = tmp_path / "G26.json"
    export.write_text(json.dumps(data), encoding="utf-8")
    build_conversations(export, tmp_path / "site")
    _assert_clean_site(tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "gpt-4o" in index and '"models":"gpt-4o"' in (tmp_path / "site" / "search-index.json").read_text("utf-8")
    if (REPRODUCERS / "G26-export-model-slug.json").is_file():
        build_conversations(REPRODUCERS / "G26-export-model-slug.json", tmp_path / "repro")
        _assert_clean_site(tmp_path / "repro")


@pytest.mark.parametrize("field", ["title", "model", "msg_model", "user"])
def test_no_marker_form_in_any_site_file_whatever_field_holds_it(tmp_path: Path, field: str) -> None:
    blank = {"msg_model": ""} if field == "model" else {}  # the default model shows where no answer names one
    convs = [_conversation(i, **{**blank, field: f"Word{i} {form} end"}) for i, form in enumerate(FORMS)]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(convs), encoding="utf-8")
    r = run_cli("build", export, tmp_path / "site")
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    _assert_clean_site(tmp_path / "site")
    listed = (tmp_path / "site" / "search-index.json").read_text(encoding="utf-8")
    assert all(f"word{i}" in listed for i in range(len(FORMS)))  # the words around each form stay


def test_front_matter_titles_leave_no_marker_in_the_site(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i, form in enumerate(FORMS):
        title = json.dumps(f"Title{i} {form} end")  # YAML reads a JSON string: NUL and escapes as given
        (src / f"a{i}.md").write_text(f"---\ntitle: {title}\n---\nHello.\n", encoding="utf-8")
    build_site(src, tmp_path / "site")
    _assert_clean_site(tmp_path / "site")
    manifest = json.loads((tmp_path / "site" / ".citerender-manifest.json").read_text(encoding="utf-8"))
    assert all(manifest["files"][f"a{i}.html"]["title"].startswith(f"Title{i}") for i in range(len(FORMS)))


def test_a_users_pasted_words_lose_glued_forms_outside_code_only(tmp_path: Path) -> None:
    user = "In Parisciteturn0search0 it rains:contentReference[oaicite:3].\n\n`Parisciteturn0search0` stays in code."
    export = tmp_path / "export.json"
    export.write_text(json.dumps([_conversation(0, user=user)]), encoding="utf-8")
    build_conversations(export, tmp_path / "site")
    page = next((tmp_path / "site" / "c").glob("*.html")).read_text(encoding="utf-8")
    assert "In Paris it rains." in page and "<code>Parisciteturn0search0</code>" in page


PIECES = [*FORMS, "a", " ", "x", "\\", "u", "e20", "0", "cite", "turn0search0", "\u3010", "\u3011", "<", ">"]


@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_the_one_pass_leaves_no_form_behind(pieces: list[str]) -> None:
    out = shown_text("".join(pieces), 10_000)
    assert VISIBLE.search(out) is None and RESERVED_OR_ESCAPE.search(out) is None, out
    assert not re.search(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", out) and out == out.strip()
    assert shown_text(out, 10_000) == out  # one pass is enough
    markup = shown_markup("<p>" + "".join(p for p in pieces if p not in "<>") + "</p>")
    assert re.search(r"cite(?:turn\d+[a-z]+\d)|contentReference\[oaicite", markup) is None, markup


def test_the_one_pass_keeps_ordinary_text() -> None:
    for text in ("Café — naïve résumé", "【公告】新产品", "entity[0] of a list", "Excite turn1a1", "C:\\users\\e200"):
        assert shown_text(text) == text
    assert shown_text(expand("gpt-4o{S}cite{D}turn0search0{E}")) == "gpt-4o"
    assert shown_text("a\nb\u2028c\x00d") == "a b c d"


def test_titles_from_headings_and_names_pass_the_same_pass(tmp_path: Path) -> None:
    """A folder build's title comes from front matter, else the first heading, else the file's
    name: each passes the one pass; a name that holds a marker form is reported (its page's address
    would show it), the rest built."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "b.md").write_text("# Heading\u2028two \ue205end\n\nHello.\n", encoding="utf-8")
    (src / "plain name.md").write_text("Hello.\n", encoding="utf-8")
    for name in [f"x{S}y", "notes citeturn0search0", "x%EE%88%80y", "x\\ue200y", "a\ue205b"]:
        (src / f"{name}.md").write_text("Hi.\n", encoding="utf-8")
    r = run_cli("build", src, tmp_path / "site")
    assert r.returncode == 2 and r.stderr.count("holds a citation marker or its residue") == 5, r.stderr
    _assert_clean_site(tmp_path / "site")
    manifest = json.loads((tmp_path / "site" / ".citerender-manifest.json").read_text(encoding="utf-8"))
    assert manifest["files"]["b.html"]["title"] == "Heading two end"
    assert manifest["files"]["plain name.html"]["title"] == "plain name"
