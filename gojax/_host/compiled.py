"""Compiled rules for host code: ``jax.jit`` once per rules config, cached for the process.

Library functions are pure and never jit; host-side drivers (SGF replay, the
GTP game, matches between players) call the compiled functions kept here::

    rules = compiled.rules(config)
    state = rules.init()                         # jitted gojax.init
    state = rules.step(state, action)            # jitted gojax.step
    rules.legal(state)                           # bool[A]
    rules.area(state)                            # int32[2] black, white
    final, states = rules.steps(state, actions, valid)   # a scan over actions[C]
    compiled.score(config, state)                # float: area score minus the config's komi

**Komi.** Only the score reads the komi, so :func:`rules` compiles for the
config with komi 0 (:func:`rules_config`): configs that differ in komi alone
share every compiled function, and :func:`score` subtracts the komi on the
host. :func:`same_rules` tells whether two configs differ in komi at most.

:func:`jitted` keeps any other host-side compiled function (such as a match
between two players), one per distinct arguments.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from gojax import _native
from gojax._core.rules import init, legal_action_mask, step
from gojax._core.scoring import area
from gojax._core.types import GoConfig, GoState
from gojax._host import executables

__all__ = ["Rules", "jitted", "rules", "rules_config", "same_rules", "score"]

_CACHE_SIZE = 64


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _cached_jit(function: Callable, args: tuple, kwargs: tuple, native: bool) -> Callable:
    del native  # in the key: a function traced with the native kernels is not one traced without
    return jax.jit(functools.partial(function, *args, **dict(kwargs)))


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _cached_stored(function: Callable, args: tuple, kwargs: tuple, root: Path, native: bool) -> Callable:
    del native
    config = next((a for a in args if isinstance(a, GoConfig)), None)
    what = (function.__module__, function.__qualname__, args, kwargs)
    return executables.Stored(config, what, functools.partial(function, *args, **dict(kwargs)))


def jitted(function: Callable, *args, **kwargs) -> Callable:
    """``jax.jit(functools.partial(function, *args, **kwargs))``, cached per distinct arguments.

    The static arguments are compared by hash and equality (frozen
    dataclasses by value, functions by identity), and whether the native kernels are in use
    (:func:`gojax._native.available`); the last 64 are kept.
    Arguments that cannot be hashed get a fresh compiled function every call.
    While a host tool keeps compiled executables on disk
    (:func:`gojax._host.executables.directory`), the function is an
    :class:`~gojax._host.executables.Stored` instead: loaded, not traced, on
    the next start.
    """
    key = tuple(sorted(kwargs.items()))
    try:
        hash((function, args, key))
    except TypeError:
        return jax.jit(functools.partial(function, *args, **kwargs))
    root, native = executables.directory(), _native.available()
    if root is None:
        return _cached_jit(function, args, key, native)
    return _cached_stored(function, args, key, root, native)


def rules_config(config: GoConfig) -> GoConfig:
    """The config the rules are compiled for: ``config`` with komi 0 (only scoring reads komi)."""
    return config if config.komi == 0.0 else dataclasses.replace(config, komi=0.0)


def same_rules(a: GoConfig, b: GoConfig) -> bool:
    """Whether two configs play the same game (they may differ in komi)."""
    return rules_config(a) == rules_config(b)


def _steps(config: GoConfig, state: GoState, actions: jax.Array, valid: jax.Array):
    """``(final, states[C])``: ``step`` over ``actions[C]`` where ``valid[C]``, else the state stays."""

    def body(state, inputs):
        action, ok = inputs
        played = step(config, state, action)
        played = jax.tree.map(lambda new, old: jnp.where(ok, new, old), played, state)
        return played, played

    return jax.lax.scan(body, state, (actions, valid))


@dataclasses.dataclass(frozen=True)
class Rules:
    """The jitted rule functions of one config (komi 0; see :func:`rules`).

    Attributes:
      config: the config they are compiled for.
      init: ``init() -> state``: the empty board (:func:`gojax.init`).
      step: ``step(state, action) -> state`` (:func:`gojax.step`).
      legal: ``legal(state) -> bool[A]`` (:func:`gojax.legal_action_mask`).
      area: ``area(state) -> int32[2]`` black, white (:func:`gojax.area`).
      steps: ``steps(state, actions[C], valid[C]) -> (final, states[C])``: a
        ``lax.scan`` of ``step`` over the actions where ``valid`` (elsewhere the
        state stays); one compiled function per chunk length ``C``.
    """

    config: GoConfig
    init: Callable[[], GoState]
    step: Callable[[GoState, jax.Array], GoState]
    legal: Callable[[GoState], jax.Array]
    area: Callable[[GoState], jax.Array]
    steps: Callable[[GoState, jax.Array, jax.Array], tuple[GoState, GoState]]


def rules(config: GoConfig) -> Rules:
    """The jitted rules of ``config``, shared by every config that differs from it in komi only."""
    config = rules_config(config)
    return Rules(
        config=config,
        init=jitted(init, config),
        step=jitted(step, config),
        legal=jitted(legal_action_mask, config),
        area=jitted(area, config),
        steps=jitted(_steps, config),
    )


def score(config: GoConfig, state: GoState) -> float:
    """Tromp-Taylor area score ``black - white - komi`` of one state, with the config's komi."""
    black, white = np.asarray(rules(config).area(state)).tolist()
    return float(black - white) - config.komi
