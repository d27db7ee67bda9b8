"""The generalized-coordinate lab (seed 003) as one offline HTML page for any planar model.

:func:`page` returns the HTML text, :func:`write` writes it (never over an existing file
unless ``force=True``). The page computes everything live from the JavaScript modules that
:mod:`lagdyn.lab.js` builds (positions, constraints, changes of coordinates) and
:mod:`lagdyn.codegen.javascript` prints; :func:`model_geometry` is where a model's particle
positions come from.
"""

from .geometry import Convention, Geometry, default_conventions, model_geometry
from .page import page, write

__all__ = ["Convention", "Geometry", "default_conventions", "model_geometry", "page", "write"]
