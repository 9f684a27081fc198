"""One extension mechanism for every pluggable part: LLM backends, readers, executors, operations.

A registry maps a name to an object (usually a class or a function). Built-ins register themselves
with a decorator in the module that defines them; the registry imports the modules of its built-in
packages the first time it is asked for a name, so adding a built-in is one new file. Other
packages add theirs through a Python entry-point group (as papermill's engines do):

    [project.entry-points."mdqa.readers"]
    my_reader = "my_pkg.readers:MyReader"

The entry-point groups, and what an entry point must name:

- `mdqa.backends`   an LLM backend class: a subclass of `mdqa_kernel.llm.Backend` (constructed with
                    an `LLMConfig`); `LLMConfig(backend=...)` and `--backend`/`--llm` accept its name.
- `mdqa.readers`    a reader class (`name`, `config()`, `read()`; see `mdqa_kernel.readers.Reader`);
                    `options` names the `make_reader` keywords its constructor takes (or a
                    `from_options(**options)` classmethod builds it); `--reader` accepts its name.
- `mdqa.executors`  an executor class with a `create(jobs, address)` classmethod (see
                    `mdqa_kernel.extract.executors`); `--executor` accepts its name.

CLI choices and configuration checks read `names()`/`choices()`, so no list of names is typed twice.
A built-in name wins over an entry point of the same name (a plug-in cannot silently replace one).
An entry point that fails to load is skipped with a warning; only asking for its name raises.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from mdqa_kernel.errors import MdqaError, UnknownNameError

T = TypeVar("T")


class RegistryError(MdqaError):
    """Two things registered under one name, or an entry point that cannot be loaded."""


class Registry(Generic[T]):
    """Named extensions of one kind, from built-in packages and an entry-point group.

    `packages`: modules or packages whose modules define the built-ins (imported on first use).
    `error`: the UnknownNameError subclass raised for an unknown name, so each kind keeps its own
    specific exception (`UnknownReaderError`, ...). `hint`: what else the caller accepts, appended to
    the list of names in that error (", or 'module:Class'")."""

    def __init__(
        self,
        kind: str,
        group: str,
        packages: Iterable[str] = (),
        *,
        error: type[UnknownNameError] = UnknownNameError,
        hint: str = "",
    ) -> None:
        self.kind = kind
        self.group = group
        self._packages = tuple(packages)
        self._error = error
        self._hint = hint
        self._items: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        self._broken: dict[str, str] = {}  # entry-point name -> why it could not be loaded
        self._loaded = False
        self._loading = False
        self._lock = threading.RLock()

    def register(self, name: str, *, aliases: Iterable[str] = ()) -> Callable[[T], T]:
        """Decorator: register the decorated object under `name` (and `aliases`)."""

        def add(obj: T) -> T:
            self.add(name, obj, aliases=aliases)
            return obj

        return add

    def add(self, name: str, obj: T, *, aliases: Iterable[str] = ()) -> None:
        """Register `obj` as `name`. The same object again (a module imported twice) is no error."""
        known = self._items.get(name)
        if known is not None and known is not obj and _qualname(known) != _qualname(obj):
            raise RegistryError(
                f"{self.kind} {name!r} is registered twice ({_qualname(known)} and {_qualname(obj)}); "
                "rename one of them"
            )
        if name in self._aliases:
            raise RegistryError(f"{self.kind} {name!r} is already an alias of {self._aliases[name]!r}")
        for alias in aliases:
            taken = alias in self._items or self._aliases.get(alias, name) != name
            if taken:
                raise RegistryError(f"alias {alias!r} of {self.kind} {name!r} is already taken")
        self._items[name] = obj
        for alias in aliases:
            self._aliases[alias] = name

    def get(self, name: str) -> T:
        """The object registered as `name` or one of its aliases."""
        self._load()
        key = self._aliases.get(name, name)
        if key not in self._items and key in self._broken:
            raise RegistryError(self._broken[key])
        if key not in self._items:
            raise self._error(self.unknown_message(name))
        return self._items[key]

    def unknown_message(self, name: str) -> str:
        """Says that `name` is unknown and lists what is known (the message `get` raises)."""
        return (
            f"unknown {self.kind} {name!r}; use one of {', '.join(self.choices())}{self._hint} "
            f"(or install a package that adds one to the entry-point group {self.group!r})"
        )

    def canonical(self, name: str) -> str:
        """The registered name for `name` (itself, or the name an alias stands for)."""
        self._load()
        return self._aliases.get(name, name)

    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted: modules register in whatever order they happen to be
        imported, and a CLI's list of choices should not depend on that."""
        self._load()
        return tuple(sorted(self._items))

    def choices(self) -> tuple[str, ...]:
        """Every name a user may type: each registered name followed by its aliases."""
        self._load()
        aliases: dict[str, list[str]] = {}
        for alias, name in self._aliases.items():
            aliases.setdefault(name, []).append(alias)
        return tuple(n for name in self.names() for n in (name, *sorted(aliases.get(name, ()))))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        self._load()
        return isinstance(name, str) and self._aliases.get(name, name) in self._items

    def _load(self) -> None:
        # The lock makes threads wait for a complete registry; `_loading` lets a built-in module that
        # asks for names while it is being imported see the partial one instead of recursing.
        if self._loaded:
            return
        with self._lock:
            if self._loaded or self._loading:
                return
            self._loading = True
            try:
                for package in self._packages:
                    _import_package(package)
                self._load_entry_points()
                self._loaded = True
            finally:
                self._loading = False

    def _load_entry_points(self) -> None:
        # One broken third-party package must not take the built-ins and the other plug-ins down with
        # it: its failure is warned about and recorded, and only asking for its own name raises it.
        for ep in entry_points(group=self.group):
            if ep.name in self._items or ep.name in self._aliases:
                continue
            try:
                obj = ep.load()
            except Exception as e:  # the plug-in's own failure, named with where it came from
                why = (
                    f"cannot load {self.kind} {ep.name!r} from entry point {ep.value!r} "
                    f"(group {self.group!r}): {type(e).__name__}: {e}; fix or uninstall the package "
                    "that declares it"
                )
                self._broken[ep.name] = why
                warnings.warn(why, RuntimeWarning, stacklevel=2)
                continue
            self.add(ep.name, obj)


def _import_package(package: str) -> None:
    """Import a module, or a package and each of its direct submodules, so their decorators run."""
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(getattr(pkg, "__path__", [])):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")


def _qualname(obj: object) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"
