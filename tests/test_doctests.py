"""Run the doctests of the public modules, so the examples in docstrings stay true."""

import doctest
import importlib
import pkgutil

import pytest

import nimmt.bots
import nimmt.engine

PACKAGES = [nimmt.engine, nimmt.bots]
MODULES = sorted(
    {pkg.__name__ for pkg in PACKAGES}
    | {
        info.name
        for pkg in PACKAGES
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}.")
    }
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
