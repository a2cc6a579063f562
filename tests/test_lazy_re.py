"""``lazy_compile`` (issue 50): a module's pattern compiled when first used, then as fast and as
capable as the compiled pattern."""

from __future__ import annotations

import re

from citerender.lazy_re import lazy_compile


def test_a_lazy_pattern_compiles_on_first_use_and_answers_as_the_pattern() -> None:
    source = r"(?P<word>[a-z]+)(\d+)?"
    lazy = lazy_compile(source, re.I)
    assert "search" not in vars(lazy)  # nothing compiled yet
    text = "Abc12 de f3"
    plain = re.compile(source, re.I)
    assert lazy.search(text).group("word") == plain.search(text).group("word")  # type: ignore[union-attr]
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert lazy.sub("-", text) == plain.sub("-", text) and lazy.split(text) == plain.split(text)
    assert lazy.findall(text) == plain.findall(text) and lazy.fullmatch("ab1") is not None
    assert lazy.match(" ") is None and lazy.subn("", text) == plain.subn("", text)
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (
        plain.pattern,
        plain.flags,
        plain.groups,
        plain.groupindex,
    )
    # after the first use the methods are the compiled pattern's own, read without a detour
    assert "search" in vars(lazy) and vars(lazy)["search"].__self__ == plain


def test_a_lazy_pattern_is_not_compiled_by_copying_or_asking_for_its_source() -> None:
    import copy

    lazy = lazy_compile(r"x+")
    assert lazy.pattern == "x+" and "search" not in vars(lazy)
    twin = copy.deepcopy(lazy)
    assert "search" not in vars(lazy) and twin.sub("y", "axxb") == "ayb"
