"""A paper author's first session: the LaTeX of a model, with their own symbol names.

Written from the docs alone (docs/export.md): seed 001's two-link arm (``two_link_planar``)
typeset for a paper — the mass matrix, the gravity vector and the equations of motion, with
the parameter groups α, β, δ and the gravity moments γ named, short trig (c₂ = cos q₂), and
the distances to the centres of mass written ℓ_c1, ℓ_c2 (a mapping of names to LaTeX),
so that ``lc2`` never reads as l·c₂. A standalone document is written too, ready for
``pdflatex``.
"""

import sys
from pathlib import Path

import lagdyn as ld
from lagdyn import export

arm = ld.zoo.two_link_planar()
names = {"lc1": r"\ell_{c_1}", "lc2": r"\ell_{c_2}", "I1": r"I_{1}", "I2": r"I_{2}"}
tex = export.latex(
    arm,
    what=("M", "g", "equations"),
    group_parameters=True,
    trig="short",
    symbols=names,
)
print(tex)
assert r"\ell_{c_2}" in tex and "lc_{2}" not in tex  # the mapping is used everywhere
assert r"\beta &= l_{1} \ell_{c_2} m_{2}" in tex  # seed 001's β = m2 l1 lc2

doc = export.latex(arm, what=("M", "C", "g"), standalone=True, symbols=names)
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
out.mkdir(parents=True, exist_ok=True)
(out / "two_link.tex").write_text(doc, encoding="utf-8")
print("wrote", out / "two_link.tex", f"({len(doc.splitlines())} lines, \\documentclass first)")
assert doc.lstrip().startswith(r"\documentclass")
