"""Collection rules for the whole tree: the aliases of moved modules are not collected.

Importing one of them replaces itself by the module it names (with a ``DeprecationWarning``),
so collecting its doctests would collect that module's twice.
"""

collect_ignore = [
    "src/lagdyn/casadi_model.py",
    *(f"src/lagdyn/robot/{name}.py" for name in ("chain", "numeric", "programs", "proofs", "regressor", "route")),
]
