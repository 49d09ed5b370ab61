"""Host-side (NumPy) companions of the engine: vertices, ASCII diagrams, host
chains, result strings, the invariant checker, compiled rules and atomic files.

This package imports only :mod:`gojax._core`.
"""
