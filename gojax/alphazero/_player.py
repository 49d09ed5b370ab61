"""An AlphaZero network plus search, or its raw policy, as a gojax player
(``player(config, state, key) -> action``).

::

    player = AlphaZeroPlayer(graphdef, variables, SearchSettings(num_simulations=64).for_play())
    result = players.play_match(config, player, players.random_player, num_games=100, key=key)

**Hashing and jit.** ``variables`` is a pytree of arrays, so the player
cannot be hashed by value. :class:`AlphaZeroPlayer` is a frozen dataclass
with ``eq=False`` - hashed and compared by identity - so
:func:`gojax.players.play_match` (which caches its compiled function per
matchup, keyed by the players' hashes) keeps one compiled function per
player object; the network's arrays are then constants of that function.
The player is also a registered pytree whose only leaves are ``variables``
(everything else is static), so a jitted function can take it as an
argument and a new set of weights does not recompile::

    move = jax.jit(lambda p, s, k: p(config, s, k))(player, state, key)
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
from flax import nnx

from gojax import symmetry
from gojax._core import checks
from gojax._core.rules import legal_action_mask
from gojax._core.types import GoConfig, GoState
from gojax.alphazero._network import Variables, apply
from gojax.features import Observation, basic_planes
from gojax.mcts import MIXED_POLICIES, Evaluator, MixedEvaluator, SearchSettings, search
from gojax.playouts import own_eyes

__all__ = ["PLAY_SETTINGS", "AlphaZeroPlayer", "PolicyPlayer", "network_evaluator"]

PLAY_SETTINGS = SearchSettings(num_simulations=64).for_play()
"""The default search of :class:`AlphaZeroPlayer`: Gumbel, 64 simulations, no PUCT noise."""


@dataclasses.dataclass(frozen=True, eq=False)
class AlphaZeroPlayer:
    """Plays the move of :func:`gojax.mcts.search` (batch of 1) with :func:`network_evaluator`.

    One game; pass once the game is over.

    Attributes:
      graphdef, variables: the network (:func:`split`).
      settings: the search (:class:`SearchSettings`; use
        :meth:`SearchSettings.for_play` for match games: no PUCT noise, the
        most visited move).
      observe: the network's observation (must match its training).
      playout_weight: AlphaGo's mixed evaluation: above ``0`` the search
        values a leaf by ``(1 - w) * v + w * r``, ``v`` the network's value
        and ``r`` the result of one playout from the leaf
        (:class:`gojax.mcts.MixedEvaluator`); ``0``: the network alone.
        A playout costs more than the network's batch of one, so a timed
        player runs fewer simulations, each valued by what the end of the
        game says as well as by the network.
      playout_policy: the playouts' policy, one of
        :data:`gojax.mcts.MIXED_POLICIES` (``"heavy"``: MoGo's priorities and
        3x3 patterns).
      symmetries: ``1`` (default): the network evaluates each position as it
        is; ``8``: the mean over the board's 8 symmetries
        (:func:`network_evaluator`), each evaluation a batch 8 times larger.

    Raises:
      TypeError: if ``settings`` is not a :class:`SearchSettings` or ``symmetries`` not an integer.
      ValueError: for a ``playout_weight`` outside ``[0, 1]``, an unknown ``playout_policy``
        or ``symmetries`` other than 1 or 8.
    """

    graphdef: nnx.GraphDef
    variables: Variables
    settings: SearchSettings = PLAY_SETTINGS
    observe: Observation = basic_planes
    playout_weight: float = 0.0
    playout_policy: str = "heavy"
    symmetries: int = 1

    def __post_init__(self):
        if not isinstance(self.settings, SearchSettings):
            raise TypeError(f"AlphaZeroPlayer.settings must be a SearchSettings, got {self.settings!r}")
        weight = checks.number(self.playout_weight, "AlphaZeroPlayer.playout_weight", least=0.0, most=1.0)
        object.__setattr__(self, "playout_weight", weight)
        if self.playout_policy not in MIXED_POLICIES:
            raise ValueError(
                f"AlphaZeroPlayer.playout_policy must be one of {MIXED_POLICIES}, got {self.playout_policy!r}"
            )
        object.__setattr__(
            self, "symmetries", _check_symmetries(self.symmetries, "AlphaZeroPlayer.symmetries")
        )

    def evaluator(self) -> Evaluator:
        """The search's evaluator: :func:`network_evaluator`, with playouts when ``playout_weight`` > 0."""
        evaluate = network_evaluator(self.graphdef, self.variables, self.observe, self.symmetries)
        if self.playout_weight > 0.0:
            return MixedEvaluator(evaluate, self.playout_weight, self.playout_policy)
        return evaluate

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the search's move for ``state`` (one game, no batch axis)."""
        batch = jax.tree.map(lambda x: x[None], state)
        out = search(config, self.evaluator(), batch, key, self.settings)
        return jnp.where(state.done, config.pass_action, out.action[0]).astype(jnp.int32)


jax.tree_util.register_dataclass(
    AlphaZeroPlayer,
    data_fields=["variables"],
    meta_fields=["graphdef", "settings", "observe", "playout_weight", "playout_policy", "symmetries"],
)


@dataclasses.dataclass(frozen=True, eq=False)
class PolicyPlayer:
    """Plays the network's most likely legal move: its raw policy, no search.

    One game; pass once the game is over. Illegal moves are masked before the
    choice, so the move is always legal, and so are the mover's one-point
    eyes (:func:`gojax.playouts.own_eyes`), as the searches for play mask
    them (:meth:`gojax.mcts.SearchSettings.for_play`): a policy that knows no
    better would otherwise fill its own eyes once the board is settled and
    its opponent passes, and lose its groups. Pass is chosen only when the
    network ranks it above every such point, or none is left. Hashed by
    identity and a pytree whose only leaves are ``variables``, like
    :class:`AlphaZeroPlayer`.

    Attributes:
      graphdef, variables: the network (:func:`split`).
      observe: the network's observation (must match its training).
      temperature: ``0`` plays the most likely move; above ``0`` samples from
        ``softmax(logits / temperature)`` over the legal moves.
      fill_own_eyes: ``True`` leaves the mover's own eyes to the network's choice.
      symmetries: ``8`` (default): the policy is the mean of the network's
        logits over the 8 symmetries of the board (:func:`network_evaluator`),
        a stronger player than one evaluation at the cost of a batch of 8;
        ``1``: the network on the position as it is.

    Raises:
      ValueError: if ``temperature`` is negative or ``symmetries`` is not 1 or 8.
      TypeError: if ``fill_own_eyes`` is not a bool or ``symmetries`` not an integer.
    """

    graphdef: nnx.GraphDef
    variables: Variables
    observe: Observation = basic_planes
    temperature: float = 0.0
    fill_own_eyes: bool = False
    symmetries: int = symmetry.NUM_SYMMETRIES

    def __post_init__(self):
        if not self.temperature >= 0:
            raise ValueError(f"PolicyPlayer.temperature must be >= 0, got {self.temperature!r}")
        if not isinstance(self.fill_own_eyes, bool):
            raise TypeError(f"PolicyPlayer.fill_own_eyes must be a bool, got {self.fill_own_eyes!r}")
        object.__setattr__(self, "symmetries", _check_symmetries(self.symmetries, "PolicyPlayer.symmetries"))

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the policy's move for ``state`` (one game, no batch axis)."""
        batch = jax.tree.map(lambda x: x[None], state)
        evaluate = network_evaluator(self.graphdef, self.variables, self.observe, self.symmetries)
        logits, _ = evaluate(config, batch, key)
        legal = legal_action_mask(config, state)
        if not self.fill_own_eyes:
            legal = legal & ~jnp.pad(own_eyes(config, state), (0, 1))  # pass is never an eye
        masked = jnp.where(legal, logits[0], -jnp.inf)
        if self.temperature > 0:
            action = jax.random.categorical(key, masked / self.temperature)
        else:
            action = jnp.argmax(masked)
        return jnp.where(state.done, config.pass_action, action).astype(jnp.int32)


jax.tree_util.register_dataclass(
    PolicyPlayer,
    data_fields=["variables"],
    meta_fields=["graphdef", "observe", "temperature", "fill_own_eyes", "symmetries"],
)


def network_evaluator(
    graphdef: nnx.GraphDef, variables: Variables, observe: Observation = basic_planes, symmetries: int = 1
) -> Evaluator:
    """A network as an evaluator (:data:`gojax.mcts.Evaluator`): its policy logits and its value.

    What :func:`gojax.mcts.search`, self-play and :class:`gojax.search.TreeSearch`
    (as its ``guide``) take::

        out = mcts.search(config, network_evaluator(graphdef, variables), states, key, settings)
        tree = TreeSearch(config, TreeSearchSettings(), guide=network_evaluator(graphdef, variables))

    The network runs in eval mode on ``observe(config, state)`` of each
    position; the key is not used. ``variables`` may be traced arrays (an
    argument of the jitted function that builds the evaluator): new weights
    then do not recompile.

    Args:
      graphdef, variables: the network (:func:`split`).
      observe: the network's observation of one position (must match its training).
      symmetries: ``1`` (default): the network on each position as it is.
        ``8``: the network on the 8 symmetric copies of each position (one
        batch of ``8 * B``), each policy mapped back to the position, the
        logits and the value averaged (:func:`gojax.symmetry.symmetrize`).
        Right only for an observation whose planes turn with the board (every
        registered one: a point's planes describe that point).

    Returns:
      ``evaluate(config, states[B], key) -> (logits float32[B, A], value float32[B])``.

    Raises:
      TypeError, ValueError: if ``symmetries`` is not 1 or 8.
    """
    symmetries = _check_symmetries(symmetries, "network_evaluator: symmetries")

    def run(planes: jax.Array) -> tuple[jax.Array, jax.Array]:
        logits, value, _ = apply(graphdef, variables, planes, train=False)
        return logits.astype(jnp.float32), value.astype(jnp.float32)

    def evaluate(config: GoConfig, states: GoState, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        del key
        planes = jax.vmap(lambda state: observe(config, state))(states)
        return run(planes) if symmetries == 1 else symmetry.symmetrize(run, planes)

    return evaluate


def _check_symmetries(symmetries: object, name: str) -> int:
    """``symmetries`` as an int, 1 or 8 (host side); TypeError or ValueError naming ``name``."""
    count = checks.integer(symmetries, name)
    if count not in (1, symmetry.NUM_SYMMETRIES):
        raise ValueError(f"{name} must be 1 or {symmetry.NUM_SYMMETRIES}, got {symmetries!r}")
    return count
