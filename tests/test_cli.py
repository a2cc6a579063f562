"""The command line: exit codes, formats, stdin, errors that name the file and line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, CliResult, assert_no_marker, expand, run_cli

from citerender.cli import main

HB = EXAMPLES / "handbook"
PR = EXAMPLES / "problems"


def run(*args: str, stdin: bytes | None = None) -> CliResult:
    return run_cli(*args, stdin=stdin)


def test_smoke_the_command_in_its_own_process(tmp_path: Path) -> None:
    """A few runs as a user's shell makes them: a fresh interpreter, real pipes, real exit codes."""
    answer = str(HB / "answer.md")
    sources = str(HB / "answer.sources.json")
    r = subprocess.run([sys.executable, "-m", "citerender.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "render" in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "citerender.cli", "render", "-", "-s", sources],
        input=(HB / "answer.md").read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "citerender-cite" in r.stdout, r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "citerender.cli", "check", answer, "-s", str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "not found" in r.stderr and "Traceback" not in r.stderr


def test_check_clean_example_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(HB / "answer.md"), "--sources", str(HB / "answer.sources.json")]) == 0
    assert capsys.readouterr().out == ""


def test_check_problems_ruff_style_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", str(PR / "answer.md"), "--sources", str(PR / "answer.sources.json")])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert f"{PR / 'answer.md'}:7:41: CR101 [error] unknown source id 'block9'" in out
    assert all(line.startswith(f"{PR / 'answer.md'}:") for line in out)


def test_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(PR / "answer.md"), "--sources", str(PR / "answer.sources.json"), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert {"code", "severity", "message", "line", "column", "hint", "name"} <= set(data[0])


def test_strip_removes_every_form_from_stdin() -> None:
    text = expand("A.{S}cite{D}x{E} B.citeturn0search0 C.【6†L1】 \\ue200cite\\ue202y\\ue201")
    r = run("strip", "-", stdin=text.encode())
    assert r.returncode == 0 and r.stdout == "A. B. C."  # no space left where the last marker was
    assert_no_marker(r.stdout)


@pytest.mark.parametrize(
    "name", ["openrouter-web-search.json", "gemini-google-search.sse", "bedrock-converse-document-char.eventstream"]
)
def test_strip_of_a_saved_response_gives_its_answer_without_citations(name: str) -> None:
    import re

    from conftest import FIXTURES

    from citerender.providers import load_response

    path = FIXTURES / "providers" / "recorded" / name
    r = run("strip", str(path))
    assert r.returncode == 0, r.stderr
    answer = re.sub("\ue200[^\ue201]*\ue201", "", load_response(path).text)  # the answer, its markers cut out
    assert " ".join(r.stdout.split()) == " ".join(answer.split())  # (it printed the response's own text before)
    assert_no_marker(r.stdout)


def test_render_fragment_and_page(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    r = run(
        "render",
        str(HB / "answer.md"),
        "--sources",
        str(HB / "answer.sources.json"),
        "--standalone",
        "--style",
        "hovercard",
        "-o",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "citerender-card" in html
    assert not list(tmp_path.glob(".*tmp"))
    r = run("render", str(HB / "answer.md"), "--sources", str(HB / "answer.sources.json"))
    assert r.returncode == 0 and r.stdout.startswith('<h1 id="can-i-work-from-home">')


def test_render_unknown_error_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    r = run(
        "render",
        str(PR / "answer.md"),
        "--sources",
        str(PR / "answer.sources.json"),
        "--unknown",
        "error",
        "-o",
        str(out),
    )
    assert r.returncode == 1 and not out.exists()
    assert "unknown source id(s): 'block9'" in r.stderr


def test_render_reports_diagnostics_on_stderr() -> None:
    r = run("render", str(PR / "answer.md"), "--sources", str(PR / "answer.sources.json"))
    assert r.returncode == 1
    assert "CR101 [error]" in r.stderr and "CR101" not in r.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["check", "nope.md"], "nope.md: answer not found"),
        (["check", "{HB}/answer.md", "--sources", "nope.json"], "nope.json: sources file not found"),
        (["render", "{HB}/answer.md", "--theme", "nope"], "theme 'nope' not found"),
        (["render", "{HB}/answer.md", "-o", "/nonexistent-dir/x.html"], "output directory does not exist"),
        (["render", "{HB}"], "answer is a directory"),
        (["check"], "the following arguments are required"),
        (["render", "{HB}/answer.md", "--style", "bogus"], "invalid choice"),
    ],
)
def test_usage_and_input_errors_exit_2(args: list[str], message: str) -> None:
    r = run(*[a.replace("{HB}", str(HB)) for a in args])
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


def test_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "s.json"
    bad.write_text('[\n {"id": "a"},\n {"id": }\n]', encoding="utf-8")
    r = run("check", str(HB / "answer.md"), "--sources", str(bad))
    assert r.returncode == 2
    assert f"{bad}:3: invalid JSON" in r.stderr


def test_non_utf8_answer(tmp_path: Path) -> None:
    bad = tmp_path / "a.md"
    bad.write_bytes("r\xe9sum\xe9\n".encode("latin-1"))
    r = run("strip", str(bad))
    assert r.returncode == 2 and "not valid UTF-8" in r.stderr


W = EXAMPLES / "worked"


def test_units_context_prompt_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "registry.json"
    docs = [str(W / "docs" / n) for n in ("handbook.md", "security.html", "expenses.txt")]
    r = run("units", *docs, "--unit", "line", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_text(encoding="utf-8") == (W / "answer.sources.json").read_text(encoding="utf-8")
    ctx = run("context", str(out))
    assert ctx.returncode == 0 and ctx.stdout == (W / "context.txt").read_text(encoding="utf-8")
    blocks = run("context", *docs, "--format", "blocks", "--unit", "block")
    assert blocks.stdout.startswith('<BLOCK id="block1" title="Employee Handbook: Working Remotely">')
    prompt = run("prompt")
    assert prompt.returncode == 0 and prompt.stdout == (W / "prompt.txt").read_text(encoding="utf-8")
    assert "{CITATION_START}" in run("prompt", "--placeholders", "--pattern", "injected").stdout
    assert run("prompt", "--placeholders", "--escapes").returncode == 2


def test_check_report_text_and_json() -> None:
    r = run("check", str(W / "answer.md"), "--sources", str(W / "answer.sources.json"), "--report")
    assert r.returncode == 0 and "sentences cited:  8/9" in r.stdout
    j = run("check", str(W / "answer.md"), "--sources", str(W / "answer.sources.json"), "--report", "--format", "json")
    data = json.loads(j.stdout)
    assert data["diagnostics"] == [] and data["report"]["sources_cited"] == 3


def test_worked_example_checks_clean_and_renders(tmp_path: Path) -> None:
    r = run(
        "render",
        str(W / "answer.md"),
        "--sources",
        str(W / "answer.sources.json"),
        "--standalone",
        "-o",
        str(tmp_path / "w.html"),
    )
    assert r.returncode == 0 and r.stderr == ""
    assert_no_marker((tmp_path / "w.html").read_text(encoding="utf-8"))


def test_an_option_without_effect_is_an_error(tmp_path: Path) -> None:
    answer = tmp_path / "a.md"
    answer.write_text(expand("Claim.{S}cite{D}a{E}\n"), encoding="utf-8")
    for args, flag in (
        (("--to", "json", "--style", "hovercard"), "--style"),
        (("--to", "markdown", "--theme", "report"), "--theme"),
        (("--to", "text", "--standalone"), "--standalone"),
        (("--to", "csl-json", "--allow-html"), "--allow-html"),
        (("--to", "pdf", "--standalone", "-o", str(tmp_path / "x.pdf")), "--standalone"),
    ):
        r = run("render", str(answer), *args)
        assert r.returncode == 2 and f"{flag} has no effect with --to" in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr
    assert not (tmp_path / "x.pdf").exists()
    ok = run("render", str(answer), "--to", "json", "--id-prefix", "a1")
    assert ok.returncode == 0 and '"anchor": "a1-cite-1"' in ok.stdout
    bad = run("render", str(answer), "--id-prefix", '1"x')
    assert bad.returncode == 2 and "id_prefix must be a letter" in bad.stderr and "Traceback" not in bad.stderr


def test_codex_summary_with_repo_and_repo_url(tmp_path: Path) -> None:
    from conftest import FIXTURES

    answer = tmp_path / "summary.md"
    answer.write_text("Done.【F:src/app.py†L1-L3】 Also【F:README.md†L9】 and【F:gone.py†L1】.\n", encoding="utf-8")
    repo = str(FIXTURES / "repo")
    r = run("render", str(answer), "--repo", repo, "--style", "hovercard")
    assert r.returncode == 1  # CR102 and CR113 are errors
    assert ":1:6: CR213" in r.stderr and ":1:31: CR102 [error] L9 is outside 'README.md'" in r.stderr
    assert "CR113 [error] 'gone.py' is not in the repository checkout" in r.stderr
    assert "def app():" in r.stdout and "【" not in r.stdout
    r = run("render", str(answer), "--repo-url", "https://github.com/o/r/blob/main", "--style", "superscript")
    assert r.returncode == 0, r.stderr
    assert 'href="https://github.com/o/r/blob/main/src/app.py#L1-L3"' in r.stdout
    r = run("render", str(answer), "--repo", str(tmp_path / "missing"))
    assert r.returncode == 2 and "repository checkout not found" in r.stderr
    r = run("render", str(answer), "--repo-url", "javascript:alert(1)")
    assert r.returncode == 2 and "not an http(s) address" in r.stderr
    out = tmp_path / "site"
    src = tmp_path / "answers"
    src.mkdir()
    (src / "summary.md").write_text(answer.read_text(encoding="utf-8"), encoding="utf-8")
    r = run("build", str(src), str(out), "--repo-url", "https://gitlab.example/o/r/-/blob/main")
    page = (out / "summary.html").read_text(encoding="utf-8")
    assert 'href="https://gitlab.example/o/r/-/blob/main/src/app.py"' in page and "【" not in page


_FM_ANSWER = (
    "---\ntitle: Retention \ue200cite\ue202turn0file0\ue201policy\nsources:\n"
    "  - id: turn0file0\n    title: Policy\n    url: https://example.com/p\n---\n\n"
    "Kept 30 days.\ue200cite\ue202turn0file0\ue201 Also\ue200cite\ue202turn9file9\ue201\n"
)


def test_render_takes_front_matter_as_build_does(tmp_path: Path) -> None:
    """An answer with front matter renders its body only, cites the front matter's sources,
    names the page after its title, and reports lines as the file numbers them."""
    answer = tmp_path / "a.md"
    answer.write_text(_FM_ANSWER, encoding="utf-8")
    r = run("render", str(answer), "--standalone")
    assert r.returncode == 1  # the unknown id
    assert "title:" not in r.stdout and "<hr" not in r.stdout
    assert "<title>Retention policy</title>" in r.stdout
    assert 'href="https://example.com/p"' in r.stdout  # the front matter's source, resolved
    assert f"{answer}:9:36: CR101 [error] unknown source id 'turn9file9'" in r.stderr.splitlines()
    assert_no_marker(r.stdout)
    check = run("check", str(answer), "--format", "json")
    assert [(d["code"], d["line"]) for d in json.loads(check.stdout) if d["code"] == "CR101"] == [("CR101", 9)]
    report = json.loads(run("check", str(answer), "--report", "--format", "json").stdout)
    assert [c["line"] for c in report["support"]["claims"]] == [9, 9]  # the claims' lines too


def test_explicit_sources_win_and_a_sidecar_is_found(tmp_path: Path) -> None:
    answer = tmp_path / "a.md"
    answer.write_text("---\ntitle: T\n---\nSee.\ue200cite\ue202turn0file0\ue201\n", encoding="utf-8")
    (tmp_path / "a.sources.json").write_text(
        json.dumps({"sources": [{"id": "turn0file0", "title": "From the sidecar"}]}), encoding="utf-8"
    )
    assert "From the sidecar" in run("render", str(answer)).stdout
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"sources": [{"id": "turn0file0", "title": "Given"}]}), encoding="utf-8")
    r = run("render", str(answer), "--sources", str(other))
    assert "Given" in r.stdout and "From the sidecar" not in r.stdout


def test_front_matter_from_stdin_and_kept_by_the_markdown_export(tmp_path: Path) -> None:
    r = run("render", "-", "--to", "markdown", stdin=_FM_ANSWER.encode())
    assert r.stdout.startswith("---\ntitle: Retention policy\nsources:\n")  # metadata kept, markers gone
    assert "Kept 30 days.[^1]" in r.stdout
    assert "<stdin>:9:36: CR101" in r.stderr
    assert_no_marker(r.stdout)


def test_render_reads_pandoc_front_matter_and_leaves_a_leading_rule_alone(tmp_path: Path) -> None:
    spec_like = tmp_path / "spec.md"  # the CommonMark spec's own header, closed by "..."
    spec_like.write_text(
        "---\ntitle: Spec\nversion: '0.31'\n...\n\n# Intro\n\nText.\n\n---\n\nMore.\n", encoding="utf-8"
    )
    r = run("render", str(spec_like))
    assert r.returncode == 0 and r.stdout.startswith('<h1 id="intro">Intro</h1>') and "version" not in r.stdout
    rule = tmp_path / "rule.md"
    rule.write_text("---\n\nAn answer opening with a rule.\n", encoding="utf-8")
    r = run("render", str(rule))
    assert r.returncode == 0 and r.stdout.startswith("<hr />\n<p>An answer opening with a rule.</p>")


def test_units_on_html_without_beautifulsoup_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After ``make demo`` (no extras), ``units`` on an HTML page says which extra to install,
    exit 2, instead of a ModuleNotFoundError traceback."""
    import sys

    page = tmp_path / "page.html"
    page.write_text("<html><head><title>T</title></head><body><p>One line.</p></body></html>", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "bs4", None)  # as if beautifulsoup4 were not installed
    r = run_cli("units", str(page), "-o", str(tmp_path / "registry.json"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "citerender[html]" in r.stderr and "pip install -e '.[html]'" in r.stderr
    assert not (tmp_path / "registry.json").exists()
