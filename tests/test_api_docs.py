"""Every public function and class carries a numpydoc docstring with an Examples doctest.

The doctests themselves run through ``pytest --doctest-modules`` (pyproject addopts); this
test makes sure none is missing. Interfaces that users implement rather than call, and the
exception classes (demonstrated together in the ``lagdyn.errors`` module docstring), are
listed as exemptions.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import lagdyn

EXEMPT = {
    "lagdyn.numeric.backends.Backend",  # abstract interface implemented by backends
    "lagdyn.numeric.backends.Kernels",
}


def _public_objects():
    for info in pkgutil.walk_packages(lagdyn.__path__, "lagdyn."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == info.name:
                yield f"{info.name}.{name}", obj


def test_every_public_function_and_class_has_an_example():
    missing = [
        qualname
        for qualname, obj in _public_objects()
        if qualname not in EXEMPT
        and not (isinstance(obj, type) and issubclass(obj, lagdyn.LagdynError))
        and ">>>" not in (inspect.getdoc(obj) or "")
    ]
    assert not missing, f"no Examples doctest: {missing}"


def test_public_methods_have_docstrings():
    missing = []
    for qualname, obj in _public_objects():
        if not inspect.isclass(obj) or qualname in EXEMPT:
            continue
        for name, member in vars(obj).items():
            if name.startswith("_"):
                continue
            func = getattr(member, "fget", None) or getattr(member, "func", None) or member
            if isinstance(member, (staticmethod, classmethod)):
                func = member.__func__
            if inspect.isfunction(func) and not inspect.getdoc(func):
                missing.append(f"{qualname}.{name}")
    assert not missing, f"no docstring: {missing}"
