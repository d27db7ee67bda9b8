"""Export a system: LaTeX for papers, Markdown/KaTeX for notebooks, source code for simulators.

:func:`latex` and :func:`markdown` print the equations of motion with dot
notation and no ``(t)``; :mod:`lagdyn.export.code` (imported on demand, it
needs :mod:`lagdyn.numeric`) writes C, C++, JAX, numba, Julia and MATLAB source;
:mod:`lagdyn.export.fmu` (imported on demand) writes Functional Mock-up Units (FMI 3.0
and 2.0) for Simulink, OpenModelica, Dymola and FMPy.

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn import export
>>> print(export.latex(ld.zoo.double_pendulum(), what=("g",)))
\\[
g(q) = \\begin{bmatrix}g l_{1} \\left(m_{1} + m_{2}\\right) \\sin {a}\\\\g l_{2} m_{2} \\sin {b}\\end{bmatrix}
\\]
"""  # noqa: E501  (doctest output)

from __future__ import annotations

from .latex import LagdynLatexPrinter, ParameterGroup, latex, parameter_groups
from .markdown import markdown

__all__ = ["LagdynLatexPrinter", "ParameterGroup", "latex", "markdown", "parameter_groups"]
