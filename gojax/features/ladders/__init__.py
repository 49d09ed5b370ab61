"""Ladders, read by search: the chase played out on the stones' bitboards, pooled over a batch.

A *ladder* is the forced chase of a chain (the *runner*) that the attacker
keeps in atari move after move. The modules, from the planes down to the
chase:

* ``_planes.py``: :func:`ladder_capture_plane` and :func:`ladder_escape_plane`
  (the AlphaGo planes), :func:`ladder_capture` and :func:`ladder_escape` (one
  ladder): the candidates, the reads the candidates need, their results.
* ``_katago.py``: KataGo's ladder features (``iterLadders``) of one board,
  for :mod:`gojax.features._katago`.
* ``_pool.py``: the reads of a whole ``vmap`` batch pooled in shared slots
  (``jax.custom_batching.custom_vmap``), on the native kernel on a CPU.
* ``_read.py``: one chase on bitboards (words first,
  :class:`gojax._core.bitboard.WordsFirst`), no ``gojax.step``.

The public names are re-exported by :mod:`gojax.features`.
"""

from gojax.features.ladders._planes import (
    ladder_capture,
    ladder_capture_plane,
    ladder_escape,
    ladder_escape_plane,
)

__all__ = ["ladder_capture", "ladder_capture_plane", "ladder_escape", "ladder_escape_plane"]
