"""citerender build: mirrored tree, index, assets once, skips, ownership, interruption."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import assert_no_marker, expand, run_cli

from citerender import CiterenderError
from citerender.jobs.pool import BATCH, PageResult, run_pages
from citerender.publish.answers import load_answer, split_front_matter
from citerender.publish.manifest import MANIFEST
from citerender.publish.site import build_site

SOURCES = [
    {"id": "s1", "title": "Source one", "url": "https://one.example/", "lines": ["a", "b", "c"]},
    {"id": "s2", "title": "Source two", "url": "https://two.example/"},
]


def make_tree(root: Path) -> Path:
    src = root / "src"
    (src / "sub" / "deeper").mkdir(parents=True)
    (src / "inline.md").write_text(
        expand(
            "---\ntitle: Inline sources\nsources:\n  - id: s1\n    title: Source one\n    url: https://one.example/\n"
            "    lines: [a, b]\n---\n# Ignored heading\n\nClaim.{S}cite{D}s1{D}L2{E}\n"
        ),
        encoding="utf-8",
    )
    (src / "shared.json").write_text(json.dumps(SOURCES), encoding="utf-8")
    (src / "sub" / "path.md").write_text(
        expand("---\nsources: ../shared.json\n---\n# By path\n\nOne.{S}cite{D}s1{E} Two.{S}cite{D}s2{E}\n"),
        encoding="utf-8",
    )
    (src / "sub" / "deeper" / "side.md").write_text(expand("# Sidecar\n\nThree.{S}cite{D}s2{E}\n"), encoding="utf-8")
    (src / "sub" / "deeper" / "side.sources.json").write_text(json.dumps({"sources": SOURCES}), encoding="utf-8")
    return src


def test_build_mirrors_the_tree_with_an_index(tmp_path: Path) -> None:
    src, out = make_tree(tmp_path), tmp_path / "out"
    res = build_site(src, out)
    assert res.written == 3 and res.skipped == 0 and res.errors == 0
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [
        MANIFEST,
        "assets/citerender.css",
        "index.html",
        "inline.html",
        "sources/inline/s1.html",  # the view of each cited source with lines (tests/test_source_views.py)
        "sub/deeper/side.html",
        "sub/path.html",
        "sub/sources/path/s1.html",
    ]
    index = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    links = {a.get_text(): a["href"] for a in index.select("ul a")}
    assert links == {
        "Inline sources": "./inline.html",
        "By path": "./sub/path.html",
        "Sidecar": "./sub/deeper/side.html",
    }
    deep = BeautifulSoup((out / "sub/deeper/side.html").read_text(encoding="utf-8"), "html.parser")
    assert deep.find("link", rel="stylesheet")["href"] == "../../assets/citerender.css"
    assert deep.select_one("#ref-1 .citerender-ref-title").get_text() == "Source two"
    for p in out.rglob("*.html"):
        assert_no_marker(p.read_text(encoding="utf-8"), str(p))


def test_rebuild_skips_unchanged_and_rebuilds_changed(tmp_path: Path) -> None:
    src, out = make_tree(tmp_path), tmp_path / "out"
    build_site(src, out)
    css = out / "assets/citerender.css"
    stamp = css.stat().st_mtime_ns
    again = build_site(src, out)
    assert again.written == 0 and again.skipped == 3 and css.stat().st_mtime_ns == stamp
    (src / "shared.json").write_text(json.dumps(SOURCES[::-1]), encoding="utf-8")  # a dependency changed
    third = build_site(src, out)
    assert third.written == 1 and [p.rel for p in third.pages if not p.skipped] == ["sub/path.md"]


def _age(root: Path) -> None:
    """Every file written an hour ago: not recent enough to be read again for safety."""
    past = time.time() - 3600
    for p in root.rglob("*"):
        os.utime(p, (past, past))


def test_a_no_change_rebuild_reads_no_answer_yet_notices_every_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import citerender.publish.build_state as site  # where a build reads answers to plan them

    src, out = make_tree(tmp_path), tmp_path / "out"
    (src / "plain.md").write_text("# Plain\n\nNo sources yet.\n", encoding="utf-8")
    _age(src)
    build_site(src, out)
    build_site(src, out)  # the first build's answers were aged: stamped now
    reads: list[Path] = []
    real = site.read_text_file
    monkeypatch.setattr(site, "read_text_file", lambda p, **kw: reads.append(p) or real(p, **kw))
    index = out / "index.html"
    written = index.stat().st_mtime_ns
    again = build_site(src, out)
    assert again.skipped == 4 and reads == [] and index.stat().st_mtime_ns == written
    (src / "plain.sources.json").write_text(json.dumps({"sources": SOURCES}), encoding="utf-8")
    assert [p.rel for p in build_site(src, out).pages if not p.skipped] == ["plain.md"]  # a sidecar appeared
    (src / "sub" / "deeper" / "side.md").write_text(expand("# Sidecar\n\nFour.{S}cite{D}s1{E}\n"), encoding="utf-8")
    assert [p.rel for p in build_site(src, out).pages if not p.skipped] == ["sub/deeper/side.md"]
    assert build_site(src, out, style="hovercard").written == 4  # other options: every page again


def test_an_answer_changed_moments_ago_is_hashed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import citerender.publish.build_state as site  # where a build reads answers to plan them

    src, out = make_tree(tmp_path), tmp_path / "out"
    build_site(src, out)  # just written: too recent to trust its size and mtime
    reads: list[Path] = []
    real = site.read_text_file
    monkeypatch.setattr(site, "read_text_file", lambda p, **kw: reads.append(p) or real(p, **kw))
    assert build_site(src, out).skipped == 3
    assert len(reads) == 3


def test_build_never_touches_files_it_does_not_own(tmp_path: Path) -> None:
    src, out = make_tree(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(CiterenderError, match="not empty"):
        build_site(src, out)
    out2 = tmp_path / "out2"
    build_site(src, out2)
    (out2 / "notes.txt").write_text("mine", encoding="utf-8")
    (src / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (out2 / "notes.html").write_text("<p>hand-written</p>", encoding="utf-8")
    with pytest.raises(CiterenderError, match="was not written by citerender build"):
        build_site(src, out2)
    assert (out2 / "notes.html").read_text(encoding="utf-8") == "<p>hand-written</p>"
    (src / "notes.md").unlink()
    (out2 / "inline.html").write_text("edited by hand", encoding="utf-8")
    (src / "inline.md").write_text("# Changed\n", encoding="utf-8")
    with pytest.raises(CiterenderError, match="changed after citerender build wrote it"):
        build_site(src, out2)
    with pytest.raises(CiterenderError, match="--overwrite"):  # re-rendering everything is not overwriting
        build_site(src, out2, force=True)
    build_site(src, out2, overwrite=True)
    assert "Changed" in (out2 / "inline.html").read_text(encoding="utf-8")
    assert (out2 / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_removed_answers_lose_their_pages(tmp_path: Path) -> None:
    src, out = make_tree(tmp_path), tmp_path / "out"
    build_site(src, out)
    (src / "sub" / "path.md").unlink()
    res = build_site(src, out)
    assert res.removed == ["sub/path.html", "sub/sources/path/s1.html"] and not (out / "sub/path.html").exists()
    assert "sub/path.html" not in json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"]


def test_parallel_build_gives_the_same_pages(tmp_path: Path) -> None:
    src = make_tree(tmp_path)
    build_site(src, tmp_path / "a", jobs=1)
    build_site(src, tmp_path / "b", jobs=2)
    for p in (tmp_path / "a").rglob("*.html"):
        assert p.read_bytes() == (tmp_path / "b" / p.relative_to(tmp_path / "a")).read_bytes()


def _page_of(task: dict[str, object]) -> PageResult:
    return PageResult(rel=str(task["rel"]), out="", title=f"pid {os.getpid()}")


@pytest.mark.parametrize("count", [1, BATCH - 1, BATCH * 5 + 3])
def test_workers_render_every_page_once_in_batches(count: int) -> None:
    """Pages go to the workers a batch at a time: every page comes back exactly once, rendered
    in a worker, whatever the count against the batch size."""
    tasks = ({"rel": f"p{i}"} for i in range(count))  # a generator, as the builds pass
    results = list(run_pages(tasks, 2, _page_of))
    assert sorted(r.rel for r in results) == sorted(f"p{i}" for i in range(count))
    assert all(r.title != f"pid {os.getpid()}" for r in results)  # rendered in the workers


def test_bad_front_matter_is_reported_and_others_still_build(tmp_path: Path) -> None:
    src, out = make_tree(tmp_path), tmp_path / "out"
    (src / "broken.md").write_text("---\ntitle: [unclosed\n---\nBody\n", encoding="utf-8")
    r = run_cli("build", str(src), str(out))
    assert r.returncode == 2
    assert f"broken.md: error: {src / 'broken.md'}:" in r.stderr and "invalid YAML front matter" in r.stderr
    assert (out / "inline.html").exists() and not (out / "broken.html").exists()


def test_front_matter_parsing() -> None:
    meta, body, line = split_front_matter("---\ntitle: T\n---\n# H\n", "x.md")
    assert meta == {"title": "T"} and body == "# H\n" and line == 4
    assert split_front_matter("# no front matter\n", "x.md") == ({}, "# no front matter\n", 1)
    with pytest.raises(CiterenderError, match="not closed"):
        split_front_matter("---\ntitle: T\n", "x.md")
    # pandoc's closing line, CRLF, trailing blanks, and the first closing line (not a later rule)
    assert split_front_matter("---\ntitle: T\n...\n\nText\n\n---\n", "x.md") == ({"title": "T"}, "\nText\n\n---\n", 4)
    assert split_front_matter("---\r\ntitle: T\r\n--- \r\nBody\r\n", "x.md") == ({"title": "T"}, "Body\r\n", 4)
    assert split_front_matter("---\ntitle: T\n---", "x.md") == ({"title": "T"}, "", 3)
    assert split_front_matter("---\ntitle: T\n----\n", "x.md", strict=False)[0] == {}  # not a closing line


@pytest.mark.parametrize(
    "text",
    ["---\n\nAn answer opening with a rule.\n", "---\nSummary\n---\n\nText.\n"],
    ids=["unclosed", "not-a-mapping"],
)
def test_a_single_answer_opening_with_a_rule_is_markdown(text: str) -> None:
    """``render`` reads front matter leniently: what is not a closed mapping of keys is Markdown
    (a build is strict: every page's metadata is meant as such)."""
    assert split_front_matter(text, "a.md", strict=False) == ({}, text, 1)
    with pytest.raises(CiterenderError):
        split_front_matter(text, "a.md")


def test_interrupted_build_keeps_good_pages_and_a_rerun_completes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "s.sources.json").write_text(json.dumps(SOURCES), encoding="utf-8")
    body = "\n\n".join(f"Paragraph {i} says a thing.{{S}}cite{{D}}s1{{E}}" for i in range(200))
    for i in range(120):
        (src / f"a{i:03}.md").write_text(
            expand(f"---\nsources: s.sources.json\n---\n# V1 {i}\n\n{body}\n"), encoding="utf-8"
        )
    out = tmp_path / "out"
    build_site(src, out)
    for i in range(120):
        p = src / f"a{i:03}.md"
        p.write_text(p.read_text(encoding="utf-8").replace("# V1", "# V2"), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "citerender.cli", "build", str(src), str(out), "--jobs", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while time.time() < deadline:  # kill once some, not all, pages are rewritten
        done = sum("V2" in (out / f"a{i:03}.html").read_text(encoding="utf-8")[:2000] for i in range(120))
        if 5 <= done < 120:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    versions = []
    for i in range(120):
        html = (out / f"a{i:03}.html").read_text(encoding="utf-8")
        assert html.rstrip().endswith("</html>"), f"a{i:03}.html is half-written"
        versions.append("V2" if f"V2 {i}" in html else "V1")
    assert "V1" in versions and "V2" in versions
    res = build_site(src, out)
    assert res.written >= versions.count("V1") and not res.failed
    assert all(f"V2 {i}" in (out / f"a{i:03}.html").read_text(encoding="utf-8") for i in range(120))
    assert not list(out.rglob("*.tmp"))


def test_load_answer_reads_front_matter_sources(tmp_path: Path) -> None:
    src = make_tree(tmp_path)
    ans = load_answer(src / "sub" / "path.md")
    assert list(ans.registry or {}) == ["s1", "s2"] and ans.body.startswith("# By path")


def test_build_reports_lines_as_the_file_numbers_them(tmp_path: Path) -> None:
    """Diagnostics of an answer with front matter name the line in the file, not in its body."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text(
        "---\ntitle: T\nsources:\n  - id: turn0file0\n    title: A\n---\n\nText.\ue200cite\ue202turn9file9\ue201\n",
        encoding="utf-8",
    )
    res = build_site(src, tmp_path / "out")
    assert f"{src / 'a.md'}:8:6: CR101 [error] unknown source id 'turn9file9'" in res.pages[0].lines


def test_a_shared_sources_file_is_parsed_once_and_read_again_when_it_changes(tmp_path: Path) -> None:
    from citerender.publish.answers import shared_sources

    f = tmp_path / "shared.sources.json"
    f.write_text(json.dumps({"sources": [{"id": "turn0file0", "title": "One"}]}), encoding="utf-8")
    old = time.time() - 3600
    os.utime(f, (old, old))
    first, again = shared_sources(f), shared_sources(f)
    assert first == again and first is not again  # one parse, each caller its own registry
    assert first["turn0file0"] is again["turn0file0"]
    f.write_text(json.dumps({"sources": [{"id": "turn0file0", "title": "Two"}]}), encoding="utf-8")
    assert shared_sources(f)["turn0file0"].title == "Two"  # a fresh file is read every time
    os.utime(f, (old + 60, old + 60))
    assert shared_sources(f)["turn0file0"].title == "Two"  # same size, another mtime: read again


def test_force_renders_every_page_again(tmp_path: Path) -> None:
    """``build --force`` re-renders every page, up to date or not (a theme or citerender itself may
    have changed); without it an unchanged answer is skipped."""
    src, out = make_tree(tmp_path), tmp_path / "out"
    first = build_site(src, out)
    again = build_site(src, out)
    assert again.written == 0 and again.skipped == first.written
    forced = build_site(src, out, force=True)
    assert forced.written == first.written and forced.skipped == 0
    r = run_cli("build", str(src), str(out), "--force")
    assert r.returncode in (0, 1) and f"built {first.written} page(s), 0 unchanged" in r.stderr
