"""Publishing integrations, each run for real: MkDocs with Material, sphinx-build with MyST, Flask."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup
from conftest import EXAMPLES, assert_no_marker, expand, load_example_module

from citerender.publish.web import citations, install_filter, render_answer, stylesheet

SOURCES = [
    {"id": "s1", "title": "Source one", "url": "https://one.example/", "lines": ["alpha", "beta"]},
    {"id": "s2", "title": "Source two", "url": "https://two.example/"},
]
PAGE_ONE = (
    "---\ntitle: One\nsources:\n  - id: s1\n    title: Source one\n    url: https://one.example/\n"
    "    lines: [alpha, beta]\n---\n# Page one{S}cite{D}s1{E}\n\nA claim.{S}cite{D}s1{D}L2{E}\n\n"
    "```python\nx = 1  {S}cite{D}s1{E}\n```\n"
)
PAGE_TWO = "# Page two\n\nAnother claim.{S}cite{D}s2{E} And a third.{S}cite{D}s1{E}{S}cite{D}s2{E}\n"


def _site(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text(expand(PAGE_ONE), encoding="utf-8")
    (docs / "two.md").write_text(expand(PAGE_TWO), encoding="utf-8")
    (docs / "two.sources.json").write_text(json.dumps(SOURCES), encoding="utf-8")
    return docs


def test_mkdocs_material_site(tmp_path: Path) -> None:
    _site(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: Cited\ntheme:\n  name: material\nplugins:\n  - search\n  - citerender:\n      style: hovercard\n",
        encoding="utf-8",
    )
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"], cwd=tmp_path, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    site = tmp_path / "site"
    one = BeautifulSoup((site / "index.html").read_text(encoding="utf-8"), "html.parser")
    two = BeautifulSoup((site / "two" / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert one.select_one("article .citerender-hovercard") is not None
    assert [c.get_text() for c in two.select("article .citerender-hc-trigger")] == ["[1]", "[1, 2]"]
    assert (
        two.select_one("article .citerender-bibliography #two-ref-2 .citerender-ref-title").get_text() == "Source one"
    )
    assert one.find("pre").get_text().strip() == "x = 1  cites1"  # code: only invisible characters go
    for doc in (one, two):
        links = [ln["href"] for ln in doc.find_all("link", rel="stylesheet") if "citerender" in ln["href"]]
        assert len(links) == 1
        assert "CITERENDER" not in str(doc).upper().replace("CITERENDER-", "").replace("CITERENDER.CSS", "")
    assert (site / "assets" / "citerender.css").is_file()
    for p in site.rglob("*.html"):
        assert_no_marker(p.read_text(encoding="utf-8"), str(p))
    toc = [a.get_text(strip=True) for a in one.select("nav a")]
    assert not any("CITERENDER" in t.upper() for t in toc)


def test_sphinx_myst_build(tmp_path: Path) -> None:
    _site(tmp_path)
    (tmp_path / "docs" / "conf.py").write_text(
        'project = "cited"\nextensions = ["myst_parser", "citerender.sphinx"]\n'
        'myst_enable_extensions = []\nsource_suffix = {".md": "markdown"}\n'
        'exclude_patterns = ["_build"]\nciterender_style = "footnotes"\n',
        encoding="utf-8",
    )
    (tmp_path / "docs" / "index.md").write_text(expand(PAGE_ONE) + "\n```{toctree}\ntwo\n```\n", encoding="utf-8")
    out = tmp_path / "html"
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "-q", str(tmp_path / "docs"), str(out)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    two = BeautifulSoup((out / "two.html").read_text(encoding="utf-8"), "html.parser")
    cites = two.select("sup.citerender-cite")
    assert [c.get_text() for c in cites] == ["[1]", "[1, 2]"]
    assert two.select_one(".citerender-bibliography #two-ref-1 .citerender-ref-title").get_text() == "Source two"
    assert two.find("link", href="_static/citerender.css") is not None
    assert (out / "_static" / "citerender.css").is_file()
    for p in out.rglob("*.html"):
        html = p.read_text(encoding="utf-8")
        assert_no_marker(html, str(p))
        assert "CITERENDERSPHINX" not in html


def test_render_answer_and_jinja_filter() -> None:
    import jinja2

    text = expand("Claim.{S}cite{D}s1{E}")
    html = render_answer(text, SOURCES, style="footnotes")
    assert hasattr(html, "__html__") and "citerender-cite" in html
    env = jinja2.Environment(autoescape=True)
    install_filter(env, style="superscript")
    out = env.from_string("<div>{{ a | citations(s) }}</div>").render(a=text, s=SOURCES)
    assert 'href="https://one.example/"' in out and "&lt;" not in out
    assert "citerender-hc-trigger" in str(citations(text, SOURCES, "hovercard"))
    # one set of defaults for every entry point: footnotes, like render() and the CLI
    assert "citerender-footnotes" in str(citations(text, SOURCES))
    assert ".citerender-card" in stylesheet()


def test_flask_example_serves_a_rendered_answer() -> None:
    create_app = load_example_module(EXAMPLES / "web" / "app.py", "citerender_example_web").create_app
    client = create_app().test_client()
    page = client.get("/")
    assert page.status_code == 200
    doc = BeautifulSoup(page.get_data(as_text=True), "html.parser")
    assert len(doc.select(".citerender-hovercard")) == 8
    assert doc.find("link", rel="stylesheet")["href"] == "/citerender.css"
    assert_no_marker(page.get_data(as_text=True))
    css = client.get("/citerender.css")
    assert css.status_code == 200 and css.mimetype == "text/css"


def _mkdocs(root: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` (not ``-q``: quiet mode drops warnings before strict counts them)."""
    (root / "mkdocs.yml").write_text("site_name: t\ntheme: {name: material}\nplugins: [citerender]\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=root, capture_output=True, text=True
    )


def test_mkdocs_strict_fails_on_error_diagnostics_with_file_and_line(tmp_path: Path) -> None:
    _site(tmp_path)
    (tmp_path / "docs" / "two.md").write_text(expand("# Two\n\nA claim.{S}cite{D}nosuch{E}\n"), encoding="utf-8")
    r = _mkdocs(tmp_path)
    assert r.returncode != 0
    assert "two.md:3:9: CR101 [error] unknown source id 'nosuch'" in r.stderr


def test_mkdocs_does_not_publish_sources_files(tmp_path: Path) -> None:
    docs = _site(tmp_path)
    (docs / "data").mkdir()
    (docs / "data" / "three.json").write_text(json.dumps(SOURCES), encoding="utf-8")
    (docs / "three.md").write_text(expand("---\nsources: data/three.json\n---\nA.{S}cite{D}s1{E}\n"), encoding="utf-8")
    r = _mkdocs(tmp_path)
    assert r.returncode == 0, r.stderr
    site = tmp_path / "site"
    assert not list(site.rglob("*.sources.*")) and not (site / "data" / "three.json").exists()
    assert (site / "three" / "index.html").is_file()


def test_mkdocs_page_without_sources_says_so(tmp_path: Path) -> None:
    docs = _site(tmp_path)
    (docs / "four.md").write_text(expand("A claim.{S}cite{D}s1{E}\n"), encoding="utf-8")
    r = _mkdocs(tmp_path)
    assert r.returncode != 0  # --strict: a page published entirely unverified fails the build
    assert "four.md:1:1: CR112 [warning] rendered without sources" in r.stderr
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\ntheme: {name: material}\nplugins: [citerender]\n", encoding="utf-8"
    )
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr  # without --strict: said, and built
    assert "four.md:1:1: CR112 [warning] rendered without sources" in r.stderr
    four = BeautifulSoup((tmp_path / "site" / "four" / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert four.select_one("article .citerender-ref-note").get_text() == "unverified: rendered without sources"


def _sphinx(root: Path, page: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    docs = _site(root)
    (docs / "conf.py").write_text(
        'project = "cited"\nextensions = ["myst_parser", "citerender.sphinx"]\n'
        'source_suffix = {".md": "markdown"}\nexclude_patterns = ["_build"]\n',
        encoding="utf-8",
    )
    (docs / "index.md").write_text(expand(page) + "\n```{toctree}\ntwo\n```\n", encoding="utf-8")
    out = root / "html"
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "-q", str(docs), str(out)], capture_output=True, text=True
    )
    return r, out


def test_sphinx_warns_on_errors_and_scrubs_its_source_copies(tmp_path: Path) -> None:
    bad = PAGE_ONE.replace("A claim.{S}cite{D}s1{D}L2{E}", "A claim.{S}cite{D}nosuch{E}")
    r, _ = _sphinx(tmp_path / "bad", bad)
    assert r.returncode != 0 and "CR101 [error] unknown source id 'nosuch'" in r.stderr
    assert "index.md:11: WARNING: CR101 [error]" in r.stderr  # the document and its line, front matter counted
    r, out = _sphinx(tmp_path / "good", PAGE_ONE)
    assert r.returncode == 0, r.stderr
    copies = list((out / "_sources").glob("*.txt"))
    assert copies
    for copy in copies:
        text = copy.read_text(encoding="utf-8")
        assert not any("\ue200" <= c <= "\ue206" for c in text), copy
    assert "x = 1  cites1" in (out / "_sources" / "index.md.txt").read_text(encoding="utf-8")  # code kept


def test_mkdocs_codex_citations_with_repo_options(tmp_path: Path) -> None:
    from conftest import FIXTURES

    docs = _site(tmp_path)
    (docs / "codex.md").write_text("Done.【F:src/app.py†L1-L3】\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - citerender:\n      style: superscript\n"
        f"      repo: {FIXTURES / 'repo'}\n      repo_url: https://github.com/o/r/blob/main\n",
        encoding="utf-8",
    )
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    page = BeautifulSoup((tmp_path / "site" / "codex" / "index.html").read_text(encoding="utf-8"), "html.parser")
    link = page.select_one("sup.citerender-cite a")
    assert link["href"] == "https://github.com/o/r/blob/main/src/app.py#L1-L3"
    assert "【" not in page.get_text()


# --------------------------------------------------------------------------- checks wherever pages are published

EVIDENCE = EXAMPLES / "evidence"
SUPPORT = ("CR401", "CR402", "CR403", "CR405")  # the four unsupported claims `check` finds in the example


def _evidence_docs(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text((EVIDENCE / "answer.md").read_text(encoding="utf-8"), encoding="utf-8")
    (docs / "index.sources.yaml").write_text(
        (EVIDENCE / "answer.sources.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    return docs


def test_build_checks_support_when_asked_and_strict_fails_on_it(tmp_path: Path) -> None:
    from conftest import run_cli

    src = tmp_path / "src"
    src.mkdir()
    for name in ("answer.md", "answer.sources.yaml"):
        (src / name).write_text((EVIDENCE / name).read_text(encoding="utf-8"), encoding="utf-8")
    plain = run_cli("build", str(src), str(tmp_path / "a"), "-v")
    assert plain.returncode == 0 and not any(code in plain.stderr for code in SUPPORT)  # opt-in
    checked = run_cli("build", str(src), str(tmp_path / "b"), "-v", "--check-support")
    assert checked.returncode == 0, checked.stderr  # warnings: reported, the build passes
    assert [code for code in SUPPORT if f"{code} [warning]" in checked.stderr] == list(SUPPORT)
    assert "answer.md:3:89: CR401 [warning] 'sixty days' is not in the cited passage" in checked.stderr
    strict = run_cli("build", str(src), str(tmp_path / "c"), "--check-support", "--strict")
    assert strict.returncode == 1 and "--strict: 0 error(s), 4 warning(s), 0 page(s) without sources" in strict.stderr
    (src / "answer.sources.yaml").unlink()  # a page whose sidecar is missing: published entirely unverified
    bare = run_cli("build", str(src), str(tmp_path / "d"), "--strict")
    assert bare.returncode == 1 and "1 page(s) without sources" in bare.stderr
    assert run_cli("build", str(src), str(tmp_path / "e")).returncode == 0  # without --strict: said, not failed


def test_mkdocs_checks_support_when_asked(tmp_path: Path) -> None:
    _evidence_docs(tmp_path)

    def build(check: str) -> subprocess.CompletedProcess[str]:
        (tmp_path / "mkdocs.yml").write_text(
            f"site_name: t\nplugins:\n  - citerender:\n      check_support: {check}\n", encoding="utf-8"
        )
        return subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, capture_output=True, text=True
        )

    off = build("off")
    assert off.returncode == 0, off.stderr
    assert not any(code in off.stderr for code in SUPPORT)
    report = build("report")
    assert report.returncode == 0, report.stderr  # reported at info: a strict build passes
    assert [c for c in SUPPORT if f"{c} [warning]" in report.stderr] == list(SUPPORT)
    error = build("error")
    assert error.returncode != 0  # the author asked for them to fail the build
    assert "WARNING" in error.stderr and "index.md:3:89: CR401 [warning]" in error.stderr


def test_sphinx_checks_support_when_asked(tmp_path: Path) -> None:
    docs = _evidence_docs(tmp_path)
    out = tmp_path / "html"

    def build(check: str) -> subprocess.CompletedProcess[str]:
        (docs / "conf.py").write_text(
            'project = "cited"\nextensions = ["myst_parser", "citerender.sphinx"]\n'
            f'source_suffix = {{".md": "markdown"}}\nexclude_patterns = ["_build"]\nciterender_check_support = "{check}"\n'
            'suppress_warnings = ["myst.header"]\n',  # the example answer starts at H2
            encoding="utf-8",
        )
        return subprocess.run(
            [sys.executable, "-m", "sphinx", "-E", "-b", "html", "-W", str(docs), str(out)],
            capture_output=True,
            text=True,
        )

    assert build("report").returncode == 0
    error = build("error")
    assert error.returncode != 0 and "CR401 [warning] 'sixty days' is not in the cited passage" in error.stderr
    (docs / "index.sources.yaml").unlink()  # no sources: under -W, a page published unverified fails
    bare = build("off")
    assert bare.returncode != 0 and "CR112 [warning] rendered without sources" in bare.stderr
