"""G20: `build` never writes or deletes through a symbolic link inside its output folder.

Whatever link sits in the output folder (a folder, a page, the asset folder, the manifest; made by
anyone, pointing outside or back inside), every build refuses before writing anything, with any
options, and every file outside the output folder keeps its bytes. An output folder that is itself a
link is built into its target, and cleaned only there."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, run_cli

from citerender import CiterenderError
from citerender.jobs.files import linked_part, write_atomic

REPRODUCER = ROOT.parent / "shared" / "reproducers" / "round4" / "G20-build-symlinked-output-dir.sh"
EXPORT = FIXTURES / "chatgpt" / "conversations.json"
OPTIONS = [[], ["--force"], ["--overwrite"], ["--force", "--overwrite"], ["--jobs", "2"]]


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (links not followed) with its bytes' hash."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[p.relative_to(folder).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _site(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A source tree, its first build, and a folder elsewhere holding copies of the pages."""
    src, site, elsewhere = tmp_path / "src", tmp_path / "site", tmp_path / "elsewhere"
    (src / "sub" / "deep").mkdir(parents=True)
    (src / "top.md").write_text("Top.\n", encoding="utf-8")
    (src / "sub" / "a.md").write_text("Hello.\n", encoding="utf-8")
    (src / "sub" / "deep" / "b.md").write_text("Deep.\n", encoding="utf-8")
    assert run_cli("build", src, site, "-j", "1").returncode == 0
    shutil.copytree(site, elsewhere)
    return src, site, elsewhere


def _build(src: Path, site: Path, *extra: str) -> tuple[int, str]:
    r = run_cli("build", src, site, *extra)
    assert "Traceback" not in r.stderr
    return r.returncode, r.stderr


def _plant(site: Path, elsewhere: Path, where: str) -> None:
    """Replace ``where`` inside the site by a link to the same path under ``elsewhere``."""
    target = site / where
    if target.is_dir():
        shutil.rmtree(target)
    else:
        target.unlink()
    target.symlink_to(elsewhere / where, target_is_directory=(elsewhere / where).is_dir())


@pytest.mark.parametrize("where", ["sub", "sub/deep", "sub/a.html", "top.html", "assets", "index.html"])
@pytest.mark.parametrize("extra", OPTIONS, ids=lambda o: " ".join(o) or "plain")
def test_a_link_inside_the_output_is_never_written_or_deleted_through(
    tmp_path: Path, where: str, extra: list[str]
) -> None:
    src, site, elsewhere = _site(tmp_path)
    _plant(site, elsewhere, where)
    before_outside, before_site = _snapshot(elsewhere), _snapshot(site)
    (src / "sub" / "a.md").write_text("Hello again.\n", encoding="utf-8")  # a page to write
    (src / "sub" / "deep" / "b.md").unlink()  # and one to delete
    (src / "top.md").write_text("Top again.\n", encoding="utf-8")
    code, err = _build(src, site, *extra)
    assert code == 2
    assert "symbolic link" in err and where.split("/")[0] in err
    assert _snapshot(elsewhere) == before_outside
    assert _snapshot(site) == before_site  # refused before writing anything
    assert (site / where).is_symlink()


def test_the_reproducer(tmp_path: Path) -> None:
    cli = shutil.which("citerender", path=str(Path(sys.executable).parent))
    if not REPRODUCER.exists() or cli is None:
        pytest.skip("the shared reproducers or the console script are not here")
    r = subprocess.run(["sh", str(REPRODUCER)], env={**os.environ, "C": cli}, capture_output=True, text=True)
    assert "written outside: 0" in r.stdout and "deleted outside: no" in r.stdout, r.stdout + r.stderr


def test_a_link_pointing_back_inside_is_refused_too(tmp_path: Path) -> None:
    """A link to elsewhere in the output can be redirected between two builds: refused as well."""
    src, site, _ = _site(tmp_path)
    shutil.rmtree(site / "sub" / "deep")
    (site / "sub" / "deep").symlink_to(site / "sub", target_is_directory=True)
    code, err = _build(src, site)
    assert code == 2 and "sub/deep" in err


def test_a_linked_manifest_is_neither_read_nor_written(tmp_path: Path) -> None:
    src, site, elsewhere = _site(tmp_path)
    manifest = site / ".citerender-manifest.json"
    manifest.unlink()
    manifest.symlink_to(elsewhere / ".citerender-manifest.json")
    before = _snapshot(elsewhere)
    (src / "top.md").write_text("Changed.\n", encoding="utf-8")
    code, err = _build(src, site)
    assert code == 2 and ".citerender-manifest.json" in err
    assert _snapshot(elsewhere) == before


def test_a_page_linked_to_a_fifo_is_not_written_in_place(tmp_path: Path) -> None:
    src, site, elsewhere = _site(tmp_path)
    fifo = elsewhere / "pipe"
    os.mkfifo(fifo)
    (site / "top.html").unlink()
    (site / "top.html").symlink_to(fifo)
    (src / "top.md").write_text("Changed.\n", encoding="utf-8")
    code, err = _build(src, site, "--overwrite")  # would hang on the FIFO if it were opened
    assert code == 2 and "top.html" in err


def test_an_output_folder_that_is_a_link_is_built_into_its_target(tmp_path: Path) -> None:
    src, _, _ = _site(tmp_path)
    real, beside = tmp_path / "real-site", tmp_path / "beside"
    real.mkdir()
    beside.mkdir()
    (beside / "keep.html").write_text("keep", encoding="utf-8")
    link = tmp_path / "site-link"
    link.symlink_to(real, target_is_directory=True)
    assert _build(src, link)[0] == 0
    assert link.is_symlink() and (real / "sub" / "a.html").is_file()
    (src / "sub" / "deep" / "b.md").unlink()
    assert _build(src, link)[0] == 0
    assert not (real / "sub" / "deep" / "b.html").exists()  # cleaned, within its target
    assert link.is_symlink() and (real / "index.html").is_file()
    assert _snapshot(beside) == {"keep.html": hashlib.sha256(b"keep").hexdigest()}


def test_a_conversation_site_refuses_links_too(tmp_path: Path) -> None:
    site, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    assert run_cli("build", EXPORT, site, "-j", "1").returncode == 0
    shutil.copytree(site, elsewhere)
    folder = next(p for p in site.iterdir() if p.is_dir() and p.name != "assets")
    shutil.rmtree(folder)
    folder.symlink_to(elsewhere / folder.name, target_is_directory=True)
    before = _snapshot(elsewhere)
    for extra in OPTIONS:
        code, err = _build(EXPORT, site, *extra)
        assert code == 2 and folder.name in err, err
    assert _snapshot(elsewhere) == before


def test_write_atomic_checks_the_way_at_write_time(tmp_path: Path) -> None:
    """A link planted after the build's check (a race) is refused when the page is written."""
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / "late").symlink_to(outside, target_is_directory=True)
    with pytest.raises(CiterenderError, match="symbolic link"):
        write_atomic(out / "late" / "deeper" / "p.html", "x", make_parents=True, root=out)
    assert not any(outside.iterdir())
    write_atomic(out / "fine" / "p.html", "x", make_parents=True, root=out)
    assert (out / "fine" / "p.html").read_text() == "x"
    assert linked_part(out, out / "fine" / "p.html") is None
    assert linked_part(out, tmp_path / "elsewhere.html") == tmp_path / "elsewhere.html"
