"""Bad input for every command: one line naming the file, the place and the fix; exit 2; nothing written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, expand, run_cli

HB = EXAMPLES / "handbook"
GOOD_ANSWER = str(HB / "answer.md")
GOOD_SOURCES = str(HB / "answer.sources.json")


def make(tmp: Path, name: str, content: bytes | str | None) -> str:
    p = tmp / name
    if content is None:
        p.mkdir()
    elif isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return str(p)


# (case id, file name, file content (None: a directory), where it goes, expected words in the message)
BAD_FILES = [
    ("missing", "nope.md", "MISSING", "answer", "not found"),
    ("directory", "dir.md", None, "answer", "is a directory"),
    ("binary", "bin.md", b"\x00\x01\x02\x03PNG", "answer", "looks binary"),
    ("latin-1", "latin.md", "café\n".encode("latin-1"), "answer", "not valid UTF-8"),
    ("empty answer", "empty.md", "  \n\n", "answer", "is empty"),
    ("sources missing", "nope.json", "MISSING", "sources", "not found"),
    ("sources directory", "dir.json", None, "sources", "is a directory"),
    ("sources binary", "bin.json", b"\x00\x00\x00", "sources", "looks binary"),
    ("sources latin-1", "latin.json", '[{"id": "caf\xe9"}]'.encode("latin-1"), "sources", "not valid UTF-8"),
    ("invalid JSON", "bad.json", '[\n {"id": "a"},\n {"id": }\n]', "sources", ":3: invalid JSON"),
    ("invalid YAML", "bad.yaml", "sources:\n  - id: a\n    title: [x\n", "sources", "invalid YAML"),
    ("invalid TOML", "bad.toml", '[[sources]]\nid = "a"\ntitle =\n', "sources", ":3: invalid TOML"),
    ("wrong type", "type.json", '{"sources": {"id": "a"}}', "sources", "expected a list of sources"),
    ("title type", "title.json", '[{"id": "a", "title": 5}]', "sources", "'title' must be a string"),
    ("missing id", "noid.json", '[{"title": "x"}]', "sources", "has no 'id'"),
    ("duplicate id", "dup.json", '[{"id": "a"}, {"id": "a"}]', "sources", "duplicate source id 'a'"),
    ("id with spaces", "space.json", '[{"id": "a b"}]', "sources", "not a valid id"),
    ("updated not a date", "date.json", '[{"id": "a", "updated": "last week"}]', "sources", "not an ISO date"),
    ("lines not strings", "lines.json", '[{"id": "a", "lines": [1]}]', "sources", "list of strings"),
]

COMMANDS = {
    "check": lambda a, s: ["check", a, "--sources", s],
    "strip": lambda a, s: ["strip", a],
    "render": lambda a, s: ["render", a, "--sources", s, "-o", "{OUT}"],
    "render --to json": lambda a, s: ["render", a, "--sources", s, "--to", "json", "-o", "{OUT}"],
    "context": lambda a, s: ["context", s],
    "units": lambda a, s: ["units", a, "-o", "{OUT}"],
}


def _cases():  # type: ignore[no-untyped-def]
    for cmd, build in COMMANDS.items():
        for case in BAD_FILES:
            where = case[3]
            if where == "sources" and cmd in ("strip", "units"):
                continue
            if where == "answer" and cmd == "context":
                continue
            yield pytest.param(cmd, build, case, id=f"{cmd}:{case[0]}")


@pytest.mark.parametrize("cmd,build,case", list(_cases()))
def test_bad_file(tmp_path: Path, cmd: str, build, case) -> None:  # type: ignore[no-untyped-def]
    _, name, content, where, words = case
    path = str(tmp_path / name) if content == "MISSING" else make(tmp_path, name, content)
    answer = path if where == "answer" else GOOD_ANSWER
    sources = path if where == "sources" else GOOD_SOURCES
    out = tmp_path / "out.file"
    args = [a.replace("{OUT}", str(out)) for a in build(answer, sources)]
    r = run_cli(*args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert path in lines[0] and words in lines[0], lines[0]
    assert not out.exists() and not list(tmp_path.glob(".*.tmp"))


def test_locator_beyond_lines_is_a_diagnostic_not_an_input_error(tmp_path: Path) -> None:
    answer = make(tmp_path, "a.md", expand("Claim.{S}cite{D}turn0file0{D}L90-L99{E}\n"))
    r = run_cli("check", answer, "--sources", GOOD_SOURCES)
    assert r.returncode == 1 and "CR102" in r.stdout


def test_a_100_mb_answer_is_refused_with_a_clear_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    with open(big, "wb") as f:
        f.truncate(100 * 1024 * 1024)  # sparse: 100 MB on paper, no disk used
    out = tmp_path / "out.html"
    for args in (["render", str(big), "-o", str(out)], ["check", str(big)], ["strip", str(big)]):
        r = run_cli(*args)
        assert r.returncode == 2 and "over the limit of 67,108,864" in r.stderr and str(big) in r.stderr
    assert not out.exists()
    r = subprocess.run(
        f"head -c 70000000 /dev/zero | tr '\\0' a | {sys.executable} -m citerender.cli strip -",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "<stdin>" in r.stderr and "over the limit" in r.stderr


def test_build_bad_inputs(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("# A\n", encoding="utf-8")
    out_file = tmp_path / "file"
    out_file.write_text("x", encoding="utf-8")
    for args, words in (
        (["build", str(tmp_path / "nope"), str(tmp_path / "o")], "source folder not found"),
        (["build", str(src), str(out_file)], "not a folder"),
        (["build", str(src), str(src)], "output folder is the source folder"),
    ):
        r = run_cli(*args)
        assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_unwritable_output(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        target = "/proc/citerender-cannot-write.html"
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        target = str(ro / "x.html")
    r = run_cli("render", GOOD_ANSWER, "-o", target)
    assert r.returncode == 2 and "Traceback" not in r.stderr and target.rsplit("/", 1)[0] in r.stderr


@pytest.mark.parametrize(
    ("given", "advice"),
    [
        (GOOD_SOURCES, f"load_sources({GOOD_SOURCES!r})"),
        (Path(GOOD_SOURCES), "load_sources("),
        ([{"id": "turn0file0", "title": "A"}], "registry_from_data(data)"),
        ({"sources": []}, "registry_from_data(data)"),
        (42, "load_sources(path) or registry_from_data(data)"),
    ],
    ids=["path", "pathlib", "list", "dict", "int"],
)
def test_sources_that_are_not_a_registry_say_how_to_make_one(given: object, advice: str) -> None:
    """A path or raw data where a registry belongs fails at once, at every entry point, saying
    which function makes a registry of it (it was an AttributeError at the first citation)."""
    from markdown_it import MarkdownIt

    from citerender import StreamRenderer, check, citation_plugin, render

    answer = "A claim.\ue200cite\ue202turn0file0\ue201"
    calls = [
        lambda: render(answer, given),  # type: ignore[arg-type]
        lambda: check(answer, given),  # type: ignore[arg-type]
        lambda: StreamRenderer(given),  # type: ignore[arg-type]
        lambda: MarkdownIt().use(citation_plugin, registry=given),
    ]
    for call in calls:
        with pytest.raises(TypeError, match="must be a citerender Registry") as e:
            call()
        assert advice in str(e.value)
