"""Host-side (NumPy) companions of the engine, one module each: boards decoded
from bitboards (``grid``), chains and liberties (``chains``), why a move is
refused (``illegal``), GTP vertices (``vertices``), ASCII diagrams
(``diagram``), result strings (``results``), compiled rules for host code
(``compiled``), the invariant checker (``invariants``) and atomic files
(``atomic``).

This package imports only :mod:`gojax._core`.
"""
