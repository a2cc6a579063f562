"""The registry: every file format, the model-facing formats, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import expand

from citerender import CiterenderError, load_sources
from citerender.sources.context import parse_blocks, parse_tool_output
from citerender.sources.model import Registry, Source, registry_from_data
from citerender.syntax.types import LineRange

ENTRIES = [
    {
        "id": "turn0file0",
        "title": "Employee Handbook",
        "url": "https://company.example/handbook",
        "updated": "2026-03-01",
        "lines": ["a", "b", "c"],
        "meta": {"team": "HR"},
    },
    {"id": "block2", "text": "Syllabus"},
]


def test_formats_give_equal_registries(tmp_path: Path) -> None:
    import json

    import yaml

    (tmp_path / "s.json").write_text(json.dumps({"sources": ENTRIES}), encoding="utf-8")
    (tmp_path / "list.json").write_text(json.dumps(ENTRIES), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(yaml.safe_dump({"sources": ENTRIES}), encoding="utf-8")
    (tmp_path / "s.toml").write_text(
        '[[sources]]\nid = "turn0file0"\ntitle = "Employee Handbook"\nurl = "https://company.example/handbook"\n'
        'updated = 2026-03-01\nlines = ["a", "b", "c"]\nmeta = { team = "HR" }\n\n[[sources]]\nid = "block2"\ntext = "Syllabus"\n',
        encoding="utf-8",
    )
    regs = [load_sources(tmp_path / n) for n in ("s.json", "list.json", "s.yaml", "s.toml")]
    assert all(r == regs[0] for r in regs)
    reg = regs[0]
    assert list(reg) == ["turn0file0", "block2"]
    s = reg["turn0file0"]
    assert s.domain == "company.example" and s.updated == "2026-03-01" and s.meta["team"] == "HR"
    assert reg.has_locator("turn0file0", LineRange(2, 3)) and not reg.has_locator("turn0file0", LineRange(3, 4))
    assert reg.text_for("turn0file0", LineRange(1, 2)) == "a\nb"
    assert reg.text_for("block2") == "Syllabus" and "nope" not in reg


GUIDE_TOOL_OUTPUT = """Citation Marker: {CITATION_START}cite{CITATION_DELIMITER}file0{CITATION_STOP}
Title: Employee Handbook
URL: https://company.example/handbook
Updated: 2026-03-01

[L1] Employees may work remotely up to three days per week.
[L2] Additional remote days require manager approval.
[L3] Exceptions may apply for approved accommodations.

Citation Marker: {S}cite{D}turn0file1{E}
[Block2]
The service agreement states that termination requires thirty days' notice.
In practice, renewal terms auto-extend.
"""


def test_tool_output_as_the_guide_shows_it(tmp_path: Path) -> None:
    text = expand(GUIDE_TOOL_OUTPUT)
    reg = parse_tool_output(text)
    assert list(reg) == ["file0", "turn0file1"]
    hb = reg["file0"]
    assert (hb.title, hb.url, hb.updated) == ("Employee Handbook", "https://company.example/handbook", "2026-03-01")
    assert hb.lines == (
        "Employees may work remotely up to three days per week.",
        "Additional remote days require manager approval.",
        "Exceptions may apply for approved accommodations.",
    )
    assert reg["turn0file1"].text.startswith("The service agreement") and reg["turn0file1"].lines is None
    path = tmp_path / "tool.txt"
    path.write_text(text, encoding="utf-8")
    assert load_sources(path) == reg


def test_blocks_as_the_guide_shows_them(tmp_path: Path) -> None:
    text = '<BLOCK id="block1">\nThe service agreement states…\nIn practice…\n</BLOCK>\n\n<BLOCK id="block2">\nSyllabus\n</BLOCK>\n'
    reg = parse_blocks(text)
    assert list(reg) == ["block1", "block2"] and reg["block2"].text == "Syllabus"
    (tmp_path / "ctx.txt").write_text(text, encoding="utf-8")
    assert load_sources(tmp_path / "ctx.txt") == reg


BAD = [
    ("missing.json", None, "not found"),
    ("bad.json", '{"sources": [\n  {"id": "a",}\n]}', "invalid JSON"),
    ("bad.yaml", "sources:\n  - id: a\n    title: [unclosed\n", "invalid YAML"),
    ("bad.toml", '[[sources]]\nid = "a"\ntitle = \n', "invalid TOML"),
    ("noid.json", '[{"title": "x"}]', "has no 'id'"),
    ("dup.json", '[{"id": "a"}, {"id": "a"}]', "duplicate source id 'a'"),
    ("space.json", '[{"id": "a b"}]', "not a valid id"),
    ("date.json", '[{"id": "a", "updated": "yesterday"}]', "not an ISO date"),
    ("lines.json", '[{"id": "a", "lines": [1, 2]}]', "list of strings"),
    ("both.json", '[{"id": "a", "lines": ["x"], "text": "y"}]', "either 'lines' or 'text'"),
    ("shape.json", '{"items": []}', "expected a list of sources"),
    ("title.json", '[{"id": "a", "title": 3}]', "'title' must be a string"),
    ("what.txt", "hello", "cannot tell the sources format"),
    ("tool.txt", "Citation Marker: nothing here\n[L1] x\n", "no readable marker"),
    ("order.txt", expand("Citation Marker: {S}cite{D}a{E}\n\n[L2] x\n"), "expected an [L1] line"),
]


@pytest.mark.parametrize("name,content,message", BAD, ids=[b[0] for b in BAD])
def test_bad_sources_give_one_clear_error(tmp_path: Path, name: str, content: str | None, message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(CiterenderError) as e:
        load_sources(path)
    text = str(e.value)
    assert message in text and str(path) in text and "\n" not in text
    if name in ("bad.json", "bad.yaml", "bad.toml", "order.txt"):
        assert e.value.line is not None


def test_non_utf8_binary_and_directory(tmp_path: Path) -> None:
    (tmp_path / "latin.json").write_bytes('[{"id": "caf\xe9"}]'.encode("latin-1"))
    with pytest.raises(CiterenderError, match="not valid UTF-8"):
        load_sources(tmp_path / "latin.json")
    (tmp_path / "bin.json").write_bytes(b"\x00\x01\x02[]")
    with pytest.raises(CiterenderError, match="binary"):
        load_sources(tmp_path / "bin.json")
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(CiterenderError, match="directory"):
        load_sources(tmp_path / "dir.json")


def test_registry_rejects_duplicates_and_compares_by_content() -> None:
    with pytest.raises(CiterenderError):
        Registry([Source("a"), Source("a")])
    assert registry_from_data(ENTRIES) == registry_from_data({"sources": ENTRIES})
    assert registry_from_data(ENTRIES) != registry_from_data(ENTRIES[:1])


def test_errors_name_the_line_of_the_source_at_fault(tmp_path: Path) -> None:
    """Each id is looked for after the previous one: a duplicate is reported on its own line (not
    the first's), and an id that is also a word earlier in the file does not mislead."""
    f = tmp_path / "s.json"
    f.write_text(
        '{"sources": [\n {"id": "a", "title": "about b"},\n {"id": "b", "title": "B"},\n'
        ' {"id": "a", "title": "again"}\n]}\n',
        encoding="utf-8",
    )
    with pytest.raises(CiterenderError, match="duplicate source id 'a'") as e:
        load_sources(f)
    assert e.value.line == 4
    f.write_text('{"sources": [\n {"id": "a", "title": "about b"},\n {"id": "b", "title": 5}\n]}\n', encoding="utf-8")
    with pytest.raises(CiterenderError, match="'title' must be a string") as e:
        load_sources(f)
    assert e.value.line == 3
