"""The exported Python files here (``*_jax.py``, ``*_numba.py``) are golden text, not
modules to collect: importing them for ``--doctest-modules`` needs jax or numba.
They are compared by ``tests/export/test_golden_exports.py``."""

collect_ignore_glob = ["*/*.py"]
