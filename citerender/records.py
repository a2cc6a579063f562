"""``record``: a dataclass that compiles one method, not five (issue 50, start-up).

:func:`dataclasses.dataclass` collects the fields (``fields``, ``replace``, ``asdict``, slots as
ever); ``__init__`` alone is compiled (it runs for every instance), and the other methods are
closures over the fields' names with dataclass's behaviour. A class it does not cover (``order``,
``unsafe_hash``, ``InitVar`` fields, a dataclass base, its own ``__eq__``, ``__hash__``, ``__setattr__``
or ``__delattr__``) goes to ``dataclass``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, field
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["record"]

_T = TypeVar("_T")


class _FactorySentinel:
    def __repr__(self) -> str:
        return "<factory>"


#: the default of a parameter whose field has a ``default_factory`` (shown as ``<factory>``)
_HAS_FACTORY = _FactorySentinel()


@overload
def record(cls: type[_T], /) -> type[_T]: ...


@overload
def record(
    *,
    frozen: bool = False,
    slots: bool = False,
    eq: bool = True,
    repr: bool = True,
    kw_only: bool = False,
    compile_init: bool = True,
) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def record(
    cls: type[_T] | None = None,
    /,
    *,
    frozen: bool = False,
    slots: bool = False,
    eq: bool = True,
    repr: bool = True,
    kw_only: bool = False,
    compile_init: bool = True,
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """``@dataclass`` with the same arguments and the same class, built with one ``exec``.

    ``compile_init=False`` for a class built a few times a process (options, a document's state):
    nothing is compiled at import; its ``__init__`` binds the arguments in Python at first."""

    def wrap(c: type[_T]) -> type[_T]:
        return _build(c, frozen=frozen, slots=slots, eq=eq, want_repr=repr, kw_only=kw_only, init=compile_init)

    return wrap if cls is None else wrap(cls)


def _plain(cls: type[Any]) -> bool:
    """Is ``cls`` a class ``record`` builds as ``dataclass`` would (else ``dataclass`` builds it)?"""
    own = cls.__dict__
    if "__eq__" in own or "__hash__" in own or "__setattr__" in own or "__delattr__" in own:
        return False
    notes = own.get("__annotations__", {}).values()
    if any(isinstance(a, dataclasses.InitVar) or (isinstance(a, str) and "InitVar" in a) for a in notes):
        return False
    return not any(dataclasses.is_dataclass(b) for b in cls.__mro__[1:])


def _build(
    cls: type[_T], *, frozen: bool, slots: bool, eq: bool, want_repr: bool, kw_only: bool, init: bool = True
) -> type[_T]:
    if not _plain(cls):
        return dataclasses.dataclass(cls, frozen=frozen, slots=slots, eq=eq, repr=want_repr, kw_only=kw_only)
    has_doc = bool(cls.__dict__.get("__doc__"))
    own = set(cls.__dict__)
    if not has_doc:
        cls.__doc__ = cls.__name__  # no signature to read yet: written below
    # the fields, __match_args__ and slots; no method compiled
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=slots, kw_only=kw_only)
    fields = list(dataclasses.fields(cls))  # type: ignore[arg-type]  # (ClassVar pseudo-fields left out)
    if "__init__" not in own:
        _set(cls, _init(cls, fields, frozen) if init else _bound_init(cls, fields, frozen))
        cls.__init__.__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    if want_repr and "__repr__" not in own:
        _set(cls, recursive_repr()(_repr([f.name for f in fields if f.repr])))
    _compare_and_freeze(cls, fields, eq=eq, frozen=frozen, slots=slots)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.init, params.repr, params.eq, params.frozen = True, want_repr, eq, frozen
    if not has_doc:
        import inspect

        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    return cls


def _compare_and_freeze(cls: type[Any], fields: list[Field[Any]], *, eq: bool, frozen: bool, slots: bool) -> None:
    """``__eq__`` and ``__hash__`` as dataclass sets them; a frozen class's guards and pickling."""
    if eq:
        _set(cls, _eq(_getter([f.name for f in fields if f.compare])))
    if eq and frozen:
        _set(cls, _hash(_getter([f.name for f in fields if (f.compare if f.hash is None else f.hash)])))
    elif eq:
        cls.__hash__ = None  # type: ignore[assignment]  # as dataclass: equal by value, so unhashable
    if frozen:
        names = frozenset(f.name for f in fields)
        _set(cls, _frozen(cls, names, "__setattr__", "assign to"))
        _set(cls, _frozen(cls, names, "__delattr__", "delete"))
        if slots:
            cls.__getstate__ = _getstate  # type: ignore[assignment]
            cls.__setstate__ = _setstate


def _set(cls: type[Any], fn: Callable[..., Any]) -> None:
    fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
    setattr(cls, fn.__name__, fn)


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields' values as a tuple (what dataclass's methods compare and hash)."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        name = names[0]
        return lambda obj: (getattr(obj, name),)
    return lambda obj: ()


def _repr(names: list[str]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, object], bool]:
    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _frozen(cls: type[Any], names: frozenset[str], method: str, verb: str) -> Callable[..., None]:
    """A frozen class's ``__setattr__`` or ``__delattr__`` (``method``), as dataclass writes it."""

    def guard(self: Any, name: str, *value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot {verb} field {name!r}")
        getattr(super(cls, self), method)(name, *value)

    guard.__name__ = method
    return guard


def _init(cls: type[Any], fields: list[Field[Any]], frozen: bool) -> Callable[..., None]:
    """``__init__``, the one method compiled (from :func:`_init_source`)."""
    ns: dict[str, Any] = {"__set": object.__setattr__, "_HAS_FACTORY": _HAS_FACTORY}
    made: dict[str, Any] = {}
    exec("\n".join(_init_source(cls, fields, ns, frozen)) + "\n", ns, made)  # our own source, built from field names
    init: Callable[..., None] = made["__init__"]
    return init


#: how many instances a ``compile_init=False`` class builds binding its arguments in Python before
#: it compiles its ``__init__`` (a command renders with a few of each, a service with thousands)
BOUND_CALLS = 3


def _bound_init(cls: type[Any], fields: list[Field[Any]], frozen: bool) -> Callable[..., None]:
    """``__init__`` binding its arguments in Python, with the compiled one's signature, until the
    class has built :data:`BOUND_CALLS` instances: then the compiled ``__init__`` takes its place. A
    call it cannot bind (an argument missing, unknown or given twice) goes to the compiled
    ``__init__``, compiled then: Python's own error, word for word."""
    import inspect  # (loaded with dataclasses)

    positional = tuple(f.name for f in fields if f.init and not f.kw_only)
    accepted = frozenset(f.name for f in fields if f.init)
    required = tuple(f.name for f in fields if f.init and f.default is MISSING and f.default_factory is MISSING)
    plan = tuple((f.name, f.init, f.default, f.default_factory) for f in fields)
    put = object.__setattr__ if frozen else setattr
    post = hasattr(cls, "__post_init__")
    compiled: list[Callable[..., None]] = []
    made = [0]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        if made[0] > BOUND_CALLS and cls.__dict__.get("__init__") is __init__:  # built again and again: compiled
            _compiled()
            cls.__init__ = compiled[0]
            return compiled[0](self, *args, **kwargs)
        values = dict(zip(positional, args, strict=False))
        if len(args) > len(positional) or not accepted.issuperset(kwargs) or not values.keys().isdisjoint(kwargs):
            return _strict(self, args, kwargs)
        values.update(kwargs)
        if not all(name in values for name in required):
            return _strict(self, args, kwargs)
        for name, init, default, factory in plan:
            if init and name in values:
                put(self, name, values[name])
            elif factory is not MISSING:
                put(self, name, factory())
            elif default is not MISSING:
                put(self, name, default)
        if post:
            self.__post_init__()
        return None

    def _compiled() -> None:
        if not compiled:
            fn = _init(cls, fields, frozen)
            fn.__qualname__ = f"{cls.__qualname__}.__init__"
            fn.__annotations__ = __init__.__annotations__
            compiled.append(fn)

    def _strict(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        _compiled()
        compiled[0](self, *args, **kwargs)

    kinds = inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("self", kinds[1])]
    for f in fields:
        if f.init:
            default = _HAS_FACTORY if f.default_factory is not MISSING else f.default
            empty = inspect.Parameter.empty if default is MISSING else default
            params.append(
                inspect.Parameter(f.name, kinds[0] if f.kw_only else kinds[1], default=empty, annotation=f.type)
            )
    __init__.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    return __init__


def _init_source(cls: type[Any], fields: list[Field[Any]], ns: dict[str, Any], frozen: bool) -> list[str]:
    """``__init__``: positional parameters in field order, then keyword-only ones; defaults and
    factories as ``dataclasses`` applies them; ``__post_init__`` last."""
    params: list[str] = []
    kw: list[str] = []
    body: list[str] = []
    for f in fields:
        default = f"__dflt_{f.name}"
        param = f.name
        if f.default_factory is not MISSING:
            ns[default] = f.default_factory
            value = f"{default}() if {f.name} is _HAS_FACTORY else {f.name}" if f.init else f"{default}()"
            param = f"{f.name}=_HAS_FACTORY"
        elif f.default is not MISSING:
            ns[default] = f.default
            value = f.name if f.init else default
            param = f"{f.name}={default}"
        else:
            value = f.name if f.init else ""
        if f.init:
            (kw if f.kw_only else params).append(param)
        if value:
            body.append(f"    __set(self, {f.name!r}, {value})" if frozen else f"    self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    sig = ", ".join(["self", *params, *(["*", *kw] if kw else [])])
    return [f"def __init__({sig}):", *(body or ["    pass"])]


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=False):
        object.__setattr__(self, f.name, value)
