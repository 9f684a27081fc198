"""The registry behind every extension point: names, aliases, errors, built-in packages, entry points."""

from __future__ import annotations

import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.registry import Registry, RegistryError


class Widget:
    pass


class Gadget:
    pass


def _registry(**kwargs: object) -> Registry[type]:
    # A group no installed distribution uses: only what a test adds is found.
    return Registry("widget", f"mdqa.test-{uuid.uuid4().hex}", **kwargs)  # type: ignore[arg-type]


def test_register_get_names_and_contains() -> None:
    reg = _registry()
    assert reg.register("widget")(Widget) is Widget  # the decorator returns the class unchanged
    reg.add("gadget", Gadget)
    assert reg.get("widget") is Widget and reg.get("gadget") is Gadget
    assert reg.names() == ("gadget", "widget") == tuple(reg)  # sorted, whatever the import order
    assert reg["widget"] is Widget
    assert "widget" in reg and "nope" not in reg and 3 not in reg


def test_aliases_resolve_and_are_listed_after_their_name() -> None:
    reg = _registry()
    reg.register("local", aliases=("local-tiny",))(Widget)
    reg.register("server")(Gadget)
    assert reg.get("local-tiny") is Widget and "local-tiny" in reg
    assert reg.canonical("local-tiny") == "local" and reg.canonical("server") == "server"
    assert reg.names() == ("local", "server")
    assert reg.choices() == ("local", "local-tiny", "server")


def test_unknown_name_error_names_the_choices_and_the_group() -> None:
    reg = _registry()
    reg.register("local", aliases=("tiny",))(Widget)
    reg.register("server")(Gadget)
    with pytest.raises(UnknownNameError) as info:
        reg.get("nope")
    message = str(info.value)
    assert "unknown widget 'nope'; use one of local, tiny, server" in message
    assert reg.group in message
    assert isinstance(info.value, KeyError) and isinstance(info.value, MdqaError)


def test_unknown_name_raises_the_kinds_own_error_with_its_hint() -> None:
    class UnknownWidgetError(UnknownNameError):
        pass

    reg = _registry(error=UnknownWidgetError, hint=", or 'module:Class'")
    reg.add("widget", Widget)
    with pytest.raises(UnknownWidgetError, match=r"use one of widget, or 'module:Class' \(or install"):
        reg.get("gizmo")


def test_double_registration_is_an_error_but_the_same_object_again_is_not() -> None:
    reg = _registry()
    reg.add("widget", Widget)
    reg.add("widget", Widget)  # a module imported a second time registers the same class again
    with pytest.raises(RegistryError, match=r"'widget' is registered twice .*Widget and .*Gadget"):
        reg.add("widget", Gadget)
    assert reg.get("widget") is Widget


def test_alias_clashes_are_errors() -> None:
    reg = _registry()
    reg.register("local", aliases=("tiny",))(Widget)
    with pytest.raises(RegistryError, match=r"alias 'local' .* already taken"):
        reg.register("server", aliases=("local",))(Gadget)
    with pytest.raises(RegistryError, match=r"alias 'tiny' .* already taken"):
        reg.register("server", aliases=("tiny",))(Gadget)
    with pytest.raises(RegistryError, match="'tiny' is already an alias of 'local'"):
        reg.register("tiny")(Gadget)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def plugin_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder on sys.path; modules imported from it are forgotten afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_builtins_are_found_by_importing_the_listed_packages(plugin_root: Path) -> None:
    pkg = f"regpkg_{uuid.uuid4().hex[:8]}"
    _write(
        plugin_root,
        {
            f"{pkg}/__init__.py": f"""
                from mdqa_kernel.registry import Registry
                REG = Registry("widget", "mdqa.test-none", packages=["{pkg}.builtins", "{pkg}.single"])
            """,
            f"{pkg}/builtins/__init__.py": "",
            f"{pkg}/builtins/alpha.py": f"""
                from {pkg} import REG
                @REG.register("alpha")
                class Alpha: ...
            """,
            f"{pkg}/builtins/beta.py": f"""
                from {pkg} import REG
                @REG.register("beta", aliases=["b"])
                class Beta: ...
            """,
            f"{pkg}/builtins/_private.py": "raise RuntimeError('modules starting with _ are not imported')",
            f"{pkg}/single.py": f"""
                from {pkg} import REG
                REG.add("gamma", len)
            """,
        },
    )
    reg = __import__(pkg).REG
    assert f"{pkg}.builtins.alpha" not in sys.modules  # nothing is imported before it is needed
    assert reg.choices() == ("alpha", "beta", "b", "gamma")
    assert reg.get("b").__name__ == "Beta" and reg.get("gamma") is len


def _dist(root: Path, name: str, group: str, entry_points: dict[str, str]) -> None:
    """A minimal installed distribution: a dist-info folder with METADATA and entry_points.txt."""
    lines = "\n".join(f"{k} = {v}" for k, v in entry_points.items())
    _write(
        root,
        {
            f"{name}-0.1.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n",
            f"{name}-0.1.dist-info/entry_points.txt": f"[{group}]\n{lines}\n",
        },
    )


def test_an_entry_point_of_an_installed_distribution_is_loaded(plugin_root: Path) -> None:
    reg = _registry()
    reg.add("widget", Widget)
    module = f"plug_{uuid.uuid4().hex[:8]}"
    _write(plugin_root, {f"{module}.py": "class Sprocket:\n    pass\n\nclass Impostor:\n    pass\n"})
    _dist(
        plugin_root,
        f"mdqa_test_plugin_{module}",
        reg.group,
        {"sprocket": f"{module}:Sprocket", "widget": f"{module}:Impostor"},
    )
    assert reg.names() == ("sprocket", "widget")
    assert reg.get("sprocket").__name__ == "Sprocket"
    assert reg.get("widget") is Widget  # a plug-in cannot replace a built-in of the same name


def test_a_broken_entry_point_is_skipped_with_a_warning_and_raises_only_for_its_name(
    plugin_root: Path,
) -> None:
    reg = _registry()
    reg.add("widget", Widget)
    module = f"plug_{uuid.uuid4().hex[:8]}"
    _write(plugin_root, {f"{module}.py": "class Sprocket:\n    pass\n"})
    _dist(
        plugin_root,
        f"mdqa_test_broken_{uuid.uuid4().hex[:8]}",
        reg.group,
        {"bad": "no_such_module_xyz:Thing", "sprocket": f"{module}:Sprocket"},
    )
    with pytest.warns(RuntimeWarning, match=r"cannot load widget 'bad' .*no_such_module_xyz:Thing") as warned:
        assert reg.get("widget") is Widget  # the built-in does not depend on an unrelated package
    assert reg.group in str(warned[0].message) and "ModuleNotFoundError" in str(warned[0].message)
    assert reg.get("sprocket").__name__ == "Sprocket"  # nor does a working plug-in
    assert reg.names() == ("sprocket", "widget") and "bad" not in reg
    with pytest.raises(
        RegistryError, match=r"'bad' from entry point 'no_such_module_xyz:Thing'.*ModuleNotFound"
    ):
        reg.get("bad")
