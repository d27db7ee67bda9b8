"""The exact engine: trig polynomials in canonical form, the derivation of M, Γ, C, g on them,
exact zero tests and identities, the Gram sum Σ w·JᵀJ, display and numeric forms.

Imports nothing of lagdyn but :mod:`lagdyn.errors`. Its modules, one concept each:

- :mod:`~lagdyn.trig.convert`: sympy ↔ symengine conversion that keeps the caller's symbols;
- :mod:`~lagdyn.trig.laurent`: the Laurent encoding z_k = exp(i q_k) of trig polynomials;
- :mod:`~lagdyn.trig.linear`: expressions linear in their trig atoms, read per frequency;
- :mod:`~lagdyn.trig.derive`: M, Christoffel symbols, C, g and h on those dictionaries;
- :mod:`~lagdyn.trig.identities`: exact zero tests (the zero-test ladder
  :func:`~lagdyn.trig.identities.decide_zero`), the canonical form, skew and passivity;
- :mod:`~lagdyn.trig.gram`: the Gram sum M = Σ JᵀWJ, per frequency or in the Laurent
  encoding, for the kinematic builder and the positive-definiteness prover;
- :mod:`~lagdyn.trig.forms`: the numeric and the natural (display) forms.

Examples
--------
>>> import sympy as sp
>>> from lagdyn.trig.identities import is_zero
>>> x = sp.Symbol("x", real=True)
>>> is_zero(sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x), [x])
True
"""
