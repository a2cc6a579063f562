"""Round four of the hostile-input review, for what a theme may read and what MkDocs and Sphinx do
with one bad page (issue 46: G11, G12)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, expand, run_cli

from citerender import CiterenderError, render
from citerender.publish.site import build_site
from citerender.rendering.themes import load_theme

SECRET = "AWS_SECRET_ACCESS_KEY=example-secret"
REPRODUCERS = ROOT.parent / "shared" / "reproducers" / "round4"


def _secret(tmp_path: Path) -> Path:
    """A file outside every theme folder (it stands for ``~/.aws/credentials``)."""
    f = tmp_path / "credentials"
    f.write_text(SECRET + "\n", encoding="utf-8")
    return f


def _answer(tmp_path: Path) -> Path:
    a = tmp_path / "src" / "a.md"
    a.parent.mkdir(exist_ok=True)
    a.write_text(expand("# A\n\nHello.{S}cite{D}s1{E}\n"), encoding="utf-8")
    a.with_name("a.sources.json").write_text('[{"id": "s1", "title": "One"}]', encoding="utf-8")
    return a


def _no_secret_anywhere(tmp_path: Path) -> None:
    """No output (a page, a fragment, a site's file) holds the secret."""
    for f in [*tmp_path.glob("*.html"), *tmp_path.glob("site/**/*")]:
        if f.is_file():
            assert SECRET not in f.read_text(encoding="utf-8", errors="replace"), f


# --------------------------------------------------------------------------- G11: themes read only themselves


def _page_including(theme: Path, name: str) -> None:
    theme.mkdir(exist_ok=True)
    (theme / "page.html.j2").write_text(
        "<!DOCTYPE html><html><head><title>{{ title }}</title></head><body>{{ body }}"
        f'<footer>{{% include "{name}" %}}</footer></body></html>\n',
        encoding="utf-8",
    )


def _theme_variants(tmp_path: Path) -> dict[str, Path]:
    """Themes that would publish the secret: the reproducer's two and variants of every way a
    theme's file is read (include, extends, import, a linked folder, a relative link, theme.toml)."""
    secret = _secret(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "footer.html.j2").write_text(SECRET, encoding="utf-8")
    themes = {}
    t = themes["include"] = tmp_path / "t-include"  # the reproducer's theme1
    _page_including(t, "footer.html.j2")
    (t / "footer.html.j2").symlink_to(secret)
    t = themes["style"] = tmp_path / "t-style"  # the reproducer's theme2
    t.mkdir()
    (t / "style.css").symlink_to(secret)
    t = themes["relative"] = tmp_path / "t-relative"
    t.mkdir()
    (t / "style.css").symlink_to(Path("..") / "credentials")
    t = themes["folder"] = tmp_path / "t-folder"
    _page_including(t, "parts/footer.html.j2")
    (t / "parts").symlink_to(outside, target_is_directory=True)
    t = themes["extends"] = tmp_path / "t-extends"
    t.mkdir()
    (t / "page.html.j2").write_text('{% extends "base.html.j2" %}', encoding="utf-8")
    (t / "base.html.j2").symlink_to(secret)
    t = themes["import"] = tmp_path / "t-import"
    t.mkdir()
    (t / "page.html.j2").write_text('{% import "macros.html.j2" as m %}{{ body }}', encoding="utf-8")
    (t / "macros.html.j2").symlink_to(secret)
    t = themes["nested"] = tmp_path / "t-nested"
    (t / "a" / "b").mkdir(parents=True)
    (t / "a" / "b" / "unused.html.j2").symlink_to(secret)
    t = themes["toml"] = tmp_path / "t-toml"
    t.mkdir()
    (t / "theme.toml").symlink_to(secret)
    return themes


def test_the_reproducers_themes_are_refused_and_publish_nothing(tmp_path: Path) -> None:
    """G11 as reported: a linked template pulled in by ``{% include %}``, a linked style.css."""
    themes = _theme_variants(tmp_path)
    a = _answer(tmp_path)
    for key in ("include", "style"):
        out = tmp_path / f"{key}.html"
        r = run_cli("render", a, "--standalone", "--theme", themes[key], "-o", out)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert "outside the theme folder" in r.stderr and str(themes[key]) in r.stderr
        assert not out.exists()
    _no_secret_anywhere(tmp_path)


@pytest.mark.parametrize("key", ["include", "style", "relative", "folder", "extends", "import", "nested", "toml"])
def test_no_theme_file_brings_an_outside_file_into_any_output(tmp_path: Path, key: str) -> None:
    themes = _theme_variants(tmp_path)
    theme = themes[key]
    a = _answer(tmp_path)
    for args in (["--standalone"], [], ["--to", "html"]):  # page and fragment
        r = run_cli("render", a, *args, "--theme", theme, "-o", tmp_path / "p.html")
        assert r.returncode == 2 and "Traceback" not in r.stderr and "outside the theme folder" in r.stderr, r.stderr
    r = run_cli("build", a.parent, tmp_path / "site", "--theme", theme)
    assert r.returncode == 2 and "outside the theme folder" in r.stderr, r.stderr
    assert not (tmp_path / "site").exists()  # refused before anything is written
    with pytest.raises(CiterenderError, match="outside the theme folder"):
        render("A.", theme=theme, standalone=True)
    _no_secret_anywhere(tmp_path)


def test_a_link_planted_after_the_theme_was_loaded_is_refused_when_read(tmp_path: Path) -> None:
    """The folder is checked when the theme is loaded, and every file again when it is read."""
    secret = _secret(tmp_path)
    theme = tmp_path / "late"
    _page_including(theme, "footer.html.j2")
    th = load_theme(theme)
    (theme / "footer.html.j2").symlink_to(secret)
    with pytest.raises(CiterenderError, match=r"footer\.html\.j2 is a link to .*outside the theme folder"):
        th.render_page("<p>x</p>", title="T", css="")
    (theme / "style.css").symlink_to(secret)
    with pytest.raises(CiterenderError, match=r"style\.css is a link"):
        assert th.css


def test_a_theme_holding_a_fifo_or_a_loop_of_links_is_refused(tmp_path: Path) -> None:
    theme = tmp_path / "fifo"
    theme.mkdir()
    os.mkfifo(theme / "style.css")
    r = run_cli("render", "-", "--theme", theme, "--standalone", stdin="A.\n")
    assert r.returncode == 2 and "not a regular file" in r.stderr and "Traceback" not in r.stderr
    loop = tmp_path / "loop"  # links that point at each other: refused, never a traceback
    loop.mkdir()
    (loop / "a.html.j2").symlink_to(loop / "b.html.j2")
    (loop / "b.html.j2").symlink_to(loop / "a.html.j2")
    r = run_cli("render", "-", "--theme", loop, "--standalone", stdin="A.\n")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr


def test_ordinary_themes_keep_working(tmp_path: Path) -> None:
    """Templates including templates of the same folder (or a subfolder), a link that stays inside
    the folder, a theme that is itself reached through a link, a base theme."""
    theme = tmp_path / "mine"
    (theme / "parts").mkdir(parents=True)
    (theme / "parts" / "footer.html.j2").write_text("<p>made with care</p>", encoding="utf-8")
    (theme / "footer.html.j2").symlink_to(Path("parts") / "footer.html.j2")  # inside: fine
    (theme / "page.html.j2").write_text(
        '{% extends "layout.html.j2" %}{% block main %}{{ body }}{% include "footer.html.j2" %}'
        '{% include "parts/footer.html.j2" %}{% endblock %}',
        encoding="utf-8",
    )
    (theme / "layout.html.j2").write_text(
        "<!DOCTYPE html><html><head><title>{{ title }}</title><style>{{ css }}</style></head>"
        "<body>{% block main %}{% endblock %}</body></html>",
        encoding="utf-8",
    )
    (theme / "style.css").write_text("body { color: #123456; }", encoding="utf-8")
    (theme / "theme.toml").write_text('base = "minimal"\n', encoding="utf-8")
    link = tmp_path / "link-to-mine"
    link.symlink_to(theme, target_is_directory=True)
    for t in (theme, link):
        page = render(expand("Hi.{S}cite{D}s1{E}"), theme=t, standalone=True).html
        assert page.count("made with care") == 2 and "#123456" in page and "Hi." in page
    a = _answer(tmp_path)
    assert build_site(a.parent, tmp_path / "site", theme=theme).errors == 0
    assert (tmp_path / "site" / "a.html").read_text(encoding="utf-8").count("made with care") == 2


def test_the_reproducer_script_finds_no_secret() -> None:
    script = REPRODUCERS / "G11-theme-symlink.sh"
    if not script.is_file():
        pytest.skip("the round-four reproducers are not beside this checkout")
    exe = Path(sys.executable).with_name("citerender")
    r = subprocess.run(["sh", str(script)], cwd=REPRODUCERS, env={**os.environ, "C": str(exe)},
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "1 page line" not in r.stdout, r.stdout


# --------------------------------------------------------------------------- G12: one bad page never stops a host

GOOD_SOURCES = "---\nsources:\n  - id: s1\n    title: Good\n    url: https://example.com/good\n---\n"
#: page name → (front matter, extra files): every way a page's sources can be wrong
BAD_PAGES = {
    "badid": ('---\nsources:\n  - id: "bad id"\n---\n', {}),  # the reproducer's page
    "missingid": ("---\nsources:\n  - title: no id\n---\n", {}),
    "outside": ("---\nsources: ../outside.json\n---\n", {}),
    "missing": ("---\nsources: nosuch.json\n---\n", {}),
    "badjson": ("---\nsources: bad.json\n---\n", {"bad.json": '[{"id": "s1", '}),
    "badyaml": ("---\nsources: bad.yaml\n---\n", {"bad.yaml": "- id: s1\n  title: [unclosed\n"}),
    "sidecar": ("", {"sidecar.sources.json": "{{{"}),
    "number": ("---\nsources: 42\n---\n", {}),
    "notlist": ("---\nsources: {id: 7}\n---\n", {}),
}


def _host_docs(docs: Path) -> None:
    """A docs folder: a good page and every bad one, each citing s1."""
    docs.mkdir(parents=True)
    (docs.parent / "outside.json").write_text('[{"id": "s1", "title": "x"}]', encoding="utf-8")
    (docs / "index.md").write_text(expand(GOOD_SOURCES + "# Good\n\nClaim.{S}cite{D}s1{E}\n"), encoding="utf-8")
    for name, (front, files) in BAD_PAGES.items():
        (docs / f"{name}.md").write_text(expand(front + f"# {name}\n\nClaim.{{S}}cite{{D}}s1{{E}}\n"), encoding="utf-8")
        for fname, text in files.items():
            (docs / fname).write_text(text, encoding="utf-8")


def _no_raw_marker(site: Path) -> None:
    for f in site.rglob("*"):
        if f.is_file() and f.suffix in (".html", ".txt", ".js", ".json", ".css"):
            text = f.read_text(encoding="utf-8", errors="replace")
            assert not any("\ue200" <= c <= "\ue206" for c in text), f


def _mkdocs(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", *args], cwd=root, capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def test_mkdocs_warns_at_each_bad_page_and_builds_the_site(tmp_path: Path) -> None:
    _host_docs(tmp_path / "docs")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - citerender\n", encoding="utf-8")
    r = _mkdocs(tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    for name in BAD_PAGES:
        assert f"WARNING -  citerender: {name}.md: the page's sources were not used" in r.stderr, name
        page = (tmp_path / "site" / name / "index.html").read_text(encoding="utf-8")
        assert "Claim." in page and "rendered without sources" in page  # built, its citation unverified
    good = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "https://example.com/good" in good and "rendered without sources" not in good
    assert not (tmp_path / "site" / "bad.json").exists() and not (tmp_path / "site" / "bad.yaml").exists()
    _no_raw_marker(tmp_path / "site")
    r = _mkdocs(tmp_path, "--strict")
    assert r.returncode == 1 and "Traceback" not in r.stderr and "Aborted with" in r.stdout + r.stderr, r.stderr


def _sphinx(docs: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", *args, str(docs), str(out)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_sphinx_warns_at_each_bad_page_and_builds_the_site(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _host_docs(docs)
    (docs / "badfm.md").write_text(expand("---\ntitle: [unclosed\n---\n# FM\n\nClaim.{S}cite{D}s1{E}\n"), "utf-8")
    toc = "\n".join([*BAD_PAGES, "badfm"])
    with (docs / "index.md").open("a", encoding="utf-8") as f:
        f.write(f"\n```{{toctree}}\n{toc}\n```\n")
    (docs / "conf.py").write_text(
        'extensions = ["myst_parser", "citerender.sphinx"]\nexclude_patterns = ["_build"]\n', encoding="utf-8"
    )
    r = _sphinx(docs, tmp_path / "html")
    assert r.returncode == 0 and "Extension error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    for name in BAD_PAGES:
        assert f"{name}.md: WARNING: the page's sources were not used" in r.stderr, name
        page = (tmp_path / "html" / f"{name}.html").read_text(encoding="utf-8")
        assert "Claim." in page
    assert "badfm.md:3: WARNING: the front matter was not read" in r.stderr
    assert "https://example.com/good" in (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    _no_raw_marker(tmp_path / "html")
    r = _sphinx(docs, tmp_path / "strict", "-W")
    assert r.returncode != 0 and "Extension error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert "the page's sources were not used" in r.stderr


def test_the_reproducers_host_sites_build(tmp_path: Path) -> None:
    """G12's reproducer folders, copied (they are read-only)."""
    if not (REPRODUCERS / "G12-mkdocs").is_dir():
        pytest.skip("the round-four reproducers are not beside this checkout")
    import shutil

    shutil.copytree(REPRODUCERS / "G12-mkdocs", tmp_path / "m")
    shutil.copytree(REPRODUCERS / "G12-sphinx", tmp_path / "s")
    r = _mkdocs(tmp_path / "m")
    assert r.returncode == 0 and "bad.md: the page's sources were not used" in r.stderr, r.stderr
    r = _sphinx(tmp_path / "s", tmp_path / "s-out")
    assert r.returncode == 0 and "bad.md: WARNING: the page's sources were not used" in r.stderr, r.stderr


def test_hosts_refuse_a_theme_that_reads_outside_itself_without_a_traceback(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "style.css").symlink_to(_secret(tmp_path))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(expand(GOOD_SOURCES + "# Good\n\nClaim.{S}cite{D}s1{E}\n"), encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\nplugins:\n  - citerender:\n      theme: {theme}\n", "utf-8")
    r = _mkdocs(tmp_path)
    assert r.returncode == 1 and "outside the theme folder" in r.stderr and "Traceback" not in r.stderr, r.stderr
    (docs / "conf.py").write_text(
        f'extensions = ["myst_parser", "citerender.sphinx"]\nciterender_theme = "{theme}"\n', encoding="utf-8"
    )
    r = _sphinx(docs, tmp_path / "html")  # said, and built with the built-in theme; -W fails on it
    assert r.returncode == 0 and "WARNING: citerender_theme is not used" in r.stderr, r.stderr
    assert SECRET not in (tmp_path / "html" / "_static" / "citerender.css").read_text(encoding="utf-8")
    r = _sphinx(docs, tmp_path / "strict", "-W")
    assert r.returncode != 0 and "Traceback" not in r.stderr and "Extension error" not in r.stderr
    _no_secret_anywhere(tmp_path)


# --------------------------------------------------------------------------- G22: legal file names


def _names_folder(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.md").write_text("# OK\n\nHello.\n", encoding="utf-8")
    for n in (230, 236, 237, 246, 250, 251, 252):  # the reproducer's 246-255-byte names, and around them
        (src / ("a" * n + ".md")).write_text("Hello.\n", encoding="utf-8")
    (src / ("a" * 230 + ".md")).write_text(expand("Hello.{S}cite{D}s1{E}\n"), encoding="utf-8")
    (src / ("a" * 230 + ".sources.json")).write_text('[{"id": "s1", "title": "Side"}]', encoding="utf-8")
    long_folder = src / ("d" * 255)
    long_folder.mkdir()
    (long_folder / "y.md").write_text("Hello.\n", encoding="utf-8")
    latin1 = Path(os.fsdecode(os.fsencode(src) + b"/caf\xe9"))  # an unzipped Latin-1 folder name
    latin1.mkdir()
    (latin1 / "x.md").write_text("Hello.\n", encoding="utf-8")
    Path(os.fsdecode(os.fsencode(src) + b"/b\xe9.md")).write_text("Hello.\n", encoding="utf-8")
    return src


def test_legal_file_names_never_abort_a_build(tmp_path: Path) -> None:
    src = _names_folder(tmp_path)
    for run in ("first", "again", "forced"):
        r = run_cli("build", src, tmp_path / "site", "-j", "1", *(["--force"] if run == "forced" else []))
        assert "Traceback" not in r.stderr + r.stdout and r.returncode == 2, r.stderr
        lines = r.stdout.splitlines() + r.stderr.splitlines()
        for n in (237, 246, 250, 251, 252):  # reported, each on its line: shorten the name
            assert any(line.startswith("a" * n + ".md: error: its page's name") for line in lines), n
        assert any(line.startswith("caf\\xe9/x.md: error: the file name is not UTF-8") for line in lines)
        assert any(line.startswith("b\\xe9.md: error: the file name is not UTF-8") for line in lines)
    site = tmp_path / "site"
    for page in ("ok.html", "a" * 230 + ".html", "a" * 236 + ".html", "d" * 255 + "/y.html", "index.html"):
        assert (site / page).is_file(), page  # every other page built
    assert "Side" in (site / ("a" * 230 + ".html")).read_text(encoding="utf-8")  # its sidecar found
    index = (site / "index.html").read_text(encoding="utf-8")
    assert index.count("<li>") == 4


def test_legal_file_names_never_abort_render_or_check(tmp_path: Path) -> None:
    src = _names_folder(tmp_path)
    names = list(src.rglob("*.md"))
    assert len(names) == 11
    for p in names:
        for command in ("render", "check"):
            r = run_cli(command, p, "-o", tmp_path / "out.html") if command == "render" else run_cli(command, p)
            assert r.returncode in (0, 1) and "Traceback" not in r.stderr, (p, r.stderr)


def test_a_line_break_in_a_file_name_never_starts_a_line_of_builds_output(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    breaks = ["\n", "\r", "\u2028", "\u2029", "\x0b", "\x0c", "\x85", "\x1c"]
    for i, br in enumerate(breaks):  # each page has a warning: it gets a line of its own, with -v two more
        (src / f"n{i}{br}x.md").write_text(expand("Hi{S}cite{D}s1{E}.\n"), encoding="utf-8")
    r = run_cli("build", src, tmp_path / "site", "-v")
    assert r.returncode in (0, 1), r.stderr
    out = [line for line in (r.stdout + r.stderr).splitlines() if line]
    for i in range(len(breaks)):
        mine = [line for line in out if f"n{i}" in line]
        assert len(mine) == 3 and all("x.md" in line for line in mine), (i, mine)  # name whole on each line
    assert not any(c in r.stdout + r.stderr for c in "\r\u2028\u2029\x0b\x0c\x85\x1c")
