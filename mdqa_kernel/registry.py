"""One extension mechanism for every pluggable part: LLM backends, readers, executors, operations.

A registry maps a name to an object (usually a class or a function). Built-ins register themselves
with a decorator in the module that defines them; the registry imports the modules of its built-in
packages the first time it is asked for a name, so adding a built-in is one new file. Other
packages add theirs through a Python entry-point group (as papermill's engines do):

    [project.entry-points."mdqa.readers"]
    my_reader = "my_pkg.readers:MyReader"

CLI choices and configuration checks read `names()`, so no list of names is typed twice.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from mdqa_kernel.errors import MdqaError, UnknownNameError

T = TypeVar("T")


class RegistryError(MdqaError):
    """Two things registered under one name, or an entry point that cannot be loaded."""


class Registry(Generic[T]):
    """Named extensions of one kind, from built-in packages and an entry-point group."""

    def __init__(self, kind: str, group: str, packages: Iterable[str] = ()) -> None:
        self.kind = kind
        self.group = group
        self._packages = tuple(packages)
        self._items: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        self._loaded = False

    def register(self, name: str, *, aliases: Iterable[str] = ()) -> Callable[[T], T]:
        """Decorator: register the decorated object under `name` (and `aliases`)."""

        def add(obj: T) -> T:
            self.add(name, obj, aliases=aliases)
            return obj

        return add

    def add(self, name: str, obj: T, *, aliases: Iterable[str] = ()) -> None:
        known = self._items.get(name)
        if known is not None and known is not obj and _qualname(known) != _qualname(obj):
            raise RegistryError(
                f"{self.kind} {name!r} is registered twice ({_qualname(known)} and {_qualname(obj)}); "
                "rename one of them"
            )
        self._items[name] = obj
        for alias in aliases:
            self._aliases[alias] = name

    def get(self, name: str) -> T:
        """The object registered as `name` or one of its aliases."""
        self._load()
        key = self._aliases.get(name, name)
        if key not in self._items:
            raise UnknownNameError(
                f"unknown {self.kind} {name!r}; use one of {', '.join(self.names())} "
                f"(or install a package that adds one to the entry-point group {self.group!r})"
            )
        return self._items[key]

    def canonical(self, name: str) -> str:
        """The registered name for `name` (itself, or the name an alias stands for)."""
        self._load()
        return self._aliases.get(name, name)

    def names(self) -> tuple[str, ...]:
        """Every registered name, in registration order (built-ins first)."""
        self._load()
        return tuple(self._items)

    def __contains__(self, name: object) -> bool:
        self._load()
        return isinstance(name, str) and self._aliases.get(name, name) in self._items

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for package in self._packages:
            _import_package(package)
        for ep in entry_points(group=self.group):
            if ep.name in self._items:
                continue
            try:
                self.add(ep.name, ep.load())
            except Exception as e:  # a broken plug-in must not hide the built-ins
                raise RegistryError(
                    f"cannot load {self.kind} {ep.name!r} from entry point {ep.value!r} "
                    f"(group {self.group!r}): {e}"
                ) from e


def _import_package(package: str) -> None:
    """Import a package and each of its direct submodules, so their decorators run."""
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(getattr(pkg, "__path__", [])):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")


def _qualname(obj: object) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"
