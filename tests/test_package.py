"""The lagdyn package: lazy imports, names that do not shadow each other."""

from __future__ import annotations

import subprocess
import sys

import lagdyn as ld


def test_simulate_function_and_module_do_not_shadow_each_other():
    import lagdyn.simulation as simulation

    assert callable(ld.simulate) and ld.simulate is simulation.simulate
    assert not hasattr(ld.simulate, "__path__")


def test_import_lagdyn_does_not_load_plot_or_simulation():
    code = (
        "import sys, lagdyn; "
        "print(sorted(m for m in ('lagdyn.plot', 'lagdyn.simulation', 'lagdyn.numeric') "
        "if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_lagdyn_help_does_not_import_sympy():
    code = "import sys; from lagdyn.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\nprint('sympy' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip().endswith("False")
