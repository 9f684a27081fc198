"""One root exception: every error class of mdqa derives from MdqaError, and the notebook and the CLI
show ours as one line while a foreign exception (a bug, user code) keeps its traceback."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import traceback

import click
import pytest
from click.testing import CliRunner

import mdqa_kernel
from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.ir import PlanValidationError
from mdqa_kernel.readers import UnknownReaderError
from mdqa_kernel.store import StoreError


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(mdqa_kernel.__path__, "mdqa_kernel."):
        if info.name.rsplit(".", 1)[-1] == "__main__":  # running it would start the CLI
            continue
        module = importlib.import_module(info.name)
        found += [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__
        ]
    return found


def test_every_exception_class_of_the_package_derives_from_mdqa_error() -> None:
    classes = _exception_classes()
    assert len(classes) > 40  # the walk saw the package, not just a corner of it
    offenders = {f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, MdqaError)}
    assert sorted(offenders) == [], "derive these from mdqa_kernel.errors.MdqaError"


def test_builtin_bases_are_kept_for_callers_that_catch_them() -> None:
    from mdqa_kernel.collection.collection import DocumentNotFoundError
    from mdqa_kernel.rows.corrections import CorrectionError

    assert issubclass(PlanValidationError, ValueError) and issubclass(CorrectionError, ValueError)
    assert issubclass(DocumentNotFoundError, KeyError) and issubclass(UnknownReaderError, KeyError)


def _raise_foreign() -> None:
    raise ValueError("a bug in user code")


def test_friendly_errors_shows_ours_as_one_line_and_keeps_foreign_tracebacks() -> None:
    from IPython.core.error import UsageError

    from mdqa_kernel.notebook.cells import friendly_errors

    for ours in (PlanValidationError([("fields[0].name", "must be snake_case")]), StoreError("locked")):
        with pytest.raises(UsageError) as info, friendly_errors():
            raise ours
        assert str(info.value) == f"{type(ours).__name__}: {ours}" and "\n" not in str(info.value)
        assert info.value.__cause__ is None and info.value.__suppress_context__
    with pytest.raises(UsageError, match=r"^UnknownReaderError: unknown reader 'x'"), friendly_errors():
        raise UnknownReaderError("unknown reader 'x'")  # a KeyError too, but not shown quoted

    with pytest.raises(ValueError, match="a bug in user code") as info, friendly_errors():
        _raise_foreign()
    assert not isinstance(info.value, UsageError)
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "_raise_foreign" in frames  # the traceback still reaches the line that raised


def test_the_cli_ends_on_our_errors_with_one_line_and_leaves_bugs_alone() -> None:
    from mdqa_kernel.cli.common import MdqaGroup

    @click.group(cls=MdqaGroup)
    def cli() -> None:
        pass

    @cli.command()
    def ours() -> None:
        raise StoreError("workspace x is locked; close the other session")

    @cli.command()
    def bug() -> None:
        _raise_foreign()

    result = CliRunner().invoke(cli, ["ours"])
    assert result.exit_code == 1
    assert result.output.strip() == "error: StoreError: workspace x is locked; close the other session"
    result = CliRunner().invoke(cli, ["bug"])
    assert isinstance(result.exception, ValueError) and result.exit_code == 1
