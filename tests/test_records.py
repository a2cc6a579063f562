"""``record`` builds the class ``dataclass`` builds, with one ``exec`` (issue 50): each shape the
library uses is built both ways and the two are held equal in what a user can see — the signature,
defaults and factories, ``repr``, equality, hashing, frozen assignment, ``replace``, ``asdict``,
pickling and copying, ``__match_args__`` and ``__dataclass_params__``."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

import pytest

from citerender.records import record


def _shapes(deco: Any, **kw: Any) -> list[type[Any]]:
    """The same class bodies, decorated by ``dataclass`` or by ``record``."""

    @deco(**kw)
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: list[str] = field(default_factory=list)
        note: str = field(default="", repr=False, compare=False)
        kind: ClassVar[str] = "point"

    @deco(**kw)
    class Counted:
        total: int = field(init=False, default=0)
        items: tuple[int, ...] = ()
        seen: dict[str, int] = field(init=False, default_factory=dict)

        def __post_init__(self) -> None:
            if dataclasses.fields(self)[0].name != "total":  # type: ignore[arg-type]
                raise AssertionError
            if kw.get("frozen"):
                object.__setattr__(self, "total", sum(self.items))
            else:
                self.total = sum(self.items)

    @deco(**kw)
    class Keyed:
        """Keyword-only after the marker."""

        a: int
        _: KW_ONLY
        b: str = "b"
        c: float = field(default=1.5, hash=False)

    @deco(**kw)
    class Empty:
        pass

    return [Point, Counted, Keyed, Empty]


_ARGS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "Point": ((3,), {"y": 4, "tags": ["t"]}),
    "Counted": ((), {"items": (1, 2, 3)}),
    "Keyed": ((1,), {"b": "x"}),
    "Empty": ((), {}),
}


_KINDS = [
    {},
    {"frozen": True},
    {"slots": True},
    {"frozen": True, "slots": True},
    {"eq": False},
    {"repr": False},
    {"compile_init": False},
    {"frozen": True, "slots": True, "compile_init": False},
]
_IDS = ["plain", "frozen", "slots", "frozen-slots", "no-eq", "no-repr", "bound", "frozen-slots-bound"]


def _dataclass_kw(kw: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if k != "compile_init"}


@pytest.mark.parametrize("kw", _KINDS, ids=_IDS)
def test_a_record_is_the_dataclass_it_stands_for(kw: dict[str, Any]) -> None:
    for want, got in zip(_shapes(dataclass, **_dataclass_kw(kw)), _shapes(record, **kw), strict=True):
        name = want.__name__
        assert str(inspect.signature(got)) == str(inspect.signature(want)), name
        assert got.__doc__ == want.__doc__
        assert got.__match_args__ == want.__match_args__
        assert [(f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(got)] == [
            (f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(want)
        ]
        for attr in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
            assert getattr(got.__dataclass_params__, attr) == getattr(want.__dataclass_params__, attr)
        assert ("__slots__" in got.__dict__) == ("__slots__" in want.__dict__)
        args, kwargs = _ARGS[name]
        w, g, g2 = want(*args, **kwargs), got(*args, **kwargs), got(*args, **kwargs)
        if kw.get("repr", True):
            assert repr(g).replace(got.__qualname__, "X") == repr(w).replace(want.__qualname__, "X")
        else:
            assert repr(g).startswith("<") and vars(got).get("__repr__") is None
        assert dataclasses.asdict(g) == dataclasses.asdict(w)
        assert (g == g2) is (kw.get("eq", True) or g is g2)
        assert g != w  # another class: never equal
        _hashing(want, got, w, g, g2)
        _assigning(w, g, frozen=kw.get("frozen", False))
        assert dataclasses.asdict(copy.deepcopy(g)) == dataclasses.asdict(g)
        changed = dataclasses.replace(g)
        assert changed is not g and dataclasses.asdict(changed) == dataclasses.asdict(dataclasses.replace(w))


def _hashing(want: type[Any], got: type[Any], w: Any, g: Any, g2: Any) -> None:
    assert (want.__hash__ is None) is (got.__hash__ is None)
    if got.__hash__ is None:
        with pytest.raises(TypeError):
            hash(g)
    elif want.__dataclass_params__.frozen and want.__dataclass_params__.eq:
        try:
            expected = hash(w)
        except TypeError:  # a list field: unhashable both ways
            with pytest.raises(TypeError):
                hash(g)
        else:
            assert hash(g) == hash(g2) == expected


def _assigning(w: Any, g: Any, *, frozen: bool) -> None:
    # (a frozen slotted dataclass without fields fails another way on 3.11: its __setattr__ names
    # the class before slots; the record names its own class and says it is frozen)
    for obj in (w, g) if dataclasses.fields(w) else (g,):
        name = dataclasses.fields(obj)[0].name if dataclasses.fields(obj) else "anything"
        if frozen:
            with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
                setattr(obj, name, 1)
            with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field"):
                delattr(obj, name)
        elif dataclasses.fields(obj):
            setattr(obj, name, 7)
            assert getattr(obj, name) == 7


def test_factories_give_each_instance_its_own_value_and_defaults_are_kept() -> None:
    Point = _shapes(record)[0]
    a, b = Point(1), Point(2)
    a.tags.append("x")
    assert b.tags == [] and a.y == 0 and Point.kind == "point"
    with pytest.raises(TypeError):
        Point()
    Keyed = _shapes(record)[2]
    with pytest.raises(TypeError):
        Keyed(1, "positional b")


@record(frozen=True, slots=True)
class _Frozen:
    a: int
    b: tuple[str, ...] = ()


@record
class _Mutable:
    a: int
    b: list[int] = field(default_factory=list)


def test_records_pickle_and_copy() -> None:
    for obj in (_Frozen(1, ("x",)), _Mutable(2, [3])):
        assert pickle.loads(pickle.dumps(obj)) == obj
        assert copy.copy(obj) == obj and copy.deepcopy(obj) == obj


def test_a_record_is_recursion_safe_in_repr() -> None:
    m = _Mutable(1)
    m.b.append(m)  # type: ignore[arg-type]
    assert repr(m) == "_Mutable(a=1, b=[...])"


def test_what_record_does_not_cover_is_built_by_dataclass() -> None:
    @record(frozen=True)
    class OwnHash:
        a: int

        def __hash__(self) -> int:
            return 42

    assert hash(OwnHash(1)) == 42 and OwnHash(1) == OwnHash(1)

    @record
    class Base:
        a: int

    @record
    class Child(Base):
        b: int = 2

    assert Child(1) == Child(1, 2) and repr(Child(1)).endswith("Child(a=1, b=2)")


_BAD_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),
    ((1, 2, 3, 4, 5, 6), {}),
    ((1,), {"x": 2}),
    ((), {"nope": 1}),
    ((), {"self": 1}),
    ((1,), {"b": "x", "zz": 0}),
    ((), {"b": "x"}),
    ((1, 2), {}),
]


@pytest.mark.parametrize("kw", [{}, {"compile_init": False}, {"frozen": True, "slots": True, "compile_init": False}])
def test_a_wrong_call_fails_with_pythons_own_message(kw: dict[str, Any]) -> None:
    """A record binding its arguments in Python hands a call it cannot bind to the compiled
    ``__init__``: the error is the one the dataclass gives, word for word."""
    for want, got in zip(_shapes(dataclass, **_dataclass_kw(kw)), _shapes(record, **kw), strict=True):
        for args, kwargs in _BAD_CALLS:
            expected = _error(want, args, kwargs)
            found = _error(got, args, kwargs)
            assert found == expected, (want.__name__, args, kwargs)


def _error(cls: type[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    try:
        obj = cls(*args, **kwargs)
    except TypeError as e:
        return str(e).replace(cls.__qualname__, "X")
    return repr(dataclasses.asdict(obj))


@pytest.mark.parametrize("kw", [{"compile_init": False}, {"frozen": True, "slots": True, "compile_init": False}])
def test_a_bound_init_compiles_itself_once_the_class_is_built_again_and_again(kw: dict[str, Any]) -> None:
    """A ``compile_init=False`` class binds its first instances' arguments in Python (nothing
    compiled at import), then compiles its ``__init__`` (a render builds options, a state and a
    result: 40 µs a render before): each instance the same either way, defaults, factories and
    ``__post_init__`` included, and the signature unchanged."""
    from citerender.records import BOUND_CALLS

    for want, got in zip(_shapes(dataclass, **_dataclass_kw(kw)), _shapes(record, **kw), strict=True):
        args, kwargs = _ARGS[want.__name__]
        bound = got.__init__
        signature = str(inspect.signature(got))
        made = [got(*args, **kwargs) for _ in range(BOUND_CALLS + 2)]
        assert got.__init__ is not bound and got.__init__.__qualname__ == f"{got.__qualname__}.__init__"
        assert str(inspect.signature(got)) == signature == str(inspect.signature(want))
        expected = dataclasses.asdict(want(*args, **kwargs))
        assert all(dataclasses.asdict(m) == expected for m in made)
        made_here = [
            f.name
            for f in dataclasses.fields(got)
            if f.default_factory is not dataclasses.MISSING and f.name not in kwargs
        ]
        for name in made_here:  # a factory's value is each instance's own
            assert len({id(getattr(m, name)) for m in made}) == len(made), name
