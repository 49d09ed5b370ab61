"""The rules engine: the game state, bitboards, Zobrist hashes, rules and scoring.

This package imports nothing from the rest of gojax; everything else is built
on it. Its modules are gojax-internal: users reach them through ``gojax``.
"""
