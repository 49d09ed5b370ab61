"""gojax._core.checks: int and number arguments, from_dict fields; the configs built on them."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

import gojax
from gojax._core import checks


def _shown(value) -> str:
    return re.escape(repr(value))


# -- integer -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [7, np.int8(7), np.int32(7), np.int64(7), np.uint16(7)])
def test_integer_takes_python_and_numpy_ints_and_returns_a_python_int(value):
    result = checks.integer(value, "x", least=1, most=9)
    assert result == 7 and type(result) is int


NOT_INTS = [True, False, np.bool_(True), 7.0, np.float32(7), "7", None, [7], np.array(7)]


@pytest.mark.parametrize("value", NOT_INTS)
def test_integer_refuses_bools_and_non_integers_with_a_type_error(value):
    with pytest.raises(TypeError, match=rf"^Thing\.count must be an int, got {_shown(value)}$"):
        checks.integer(value, "Thing.count")


@pytest.mark.parametrize(
    ("value", "bounds", "expected"),
    [
        (0, {"least": 1}, "an int >= 1"),
        (-1, {"least": 0}, "an int >= 0"),
        (6, {"most": 5}, "an int <= 5"),
        (1, {"least": 2, "most": 25}, "an int from 2 to 25"),
        (26, {"least": 2, "most": 25}, "an int from 2 to 25"),
        (3, {"least": 2, "even": True}, "an even int >= 2"),
        (np.int64(-3), {"even": True}, "an even int"),
    ],
)
def test_integer_bounds_and_even_raise_a_value_error_naming_argument_value_and_range(value, bounds, expected):
    with pytest.raises(ValueError, match=rf"^GoConfig\.size must be {expected}, got {_shown(value)}$"):
        checks.integer(value, "GoConfig.size", **bounds)


def test_integer_bounds_are_inclusive():
    assert checks.integer(2, "n", least=2, most=25) == 2
    assert checks.integer(25, "n", least=2, most=25) == 25
    assert checks.integer(-4, "n", even=True) == -4
    assert checks.integer(0, "n", least=0, even=True) == 0


# -- number --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [6.5, 6, np.float32(6.5), np.float64(6.5), np.float16(6.5), np.int64(6)])
def test_number_takes_python_and_numpy_numbers_and_returns_a_python_float(value):
    result = checks.number(value, "komi")
    assert result == float(value) and type(result) is float


@pytest.mark.parametrize("value", [True, np.bool_(False), "7.5", None, np.array([7.5]), 1j])
def test_number_refuses_bools_and_non_numbers_with_a_type_error(value):
    with pytest.raises(TypeError, match=rf"^GoConfig\.komi must be a finite number, got {_shown(value)}"):
        checks.number(value, "GoConfig.komi")


@pytest.mark.parametrize(
    ("value", "bounds", "expected"),
    [
        (math.nan, {}, "a finite number"),
        (math.inf, {"least": 0.0}, "a finite number >= 0"),
        (-math.inf, {}, "a finite number"),
        (-0.5, {"least": 0.0}, "a finite number >= 0"),
        (1.5, {"least": 0.0, "most": 1.0}, "a finite number from 0 to 1"),
        (0.0, {"positive": True}, "a finite number > 0"),
        (np.float32(-1), {"positive": True, "most": 2.5}, "a finite number > 0 and <= 2.5"),
        (3, {"most": 2.5}, "a finite number <= 2.5"),
    ],
)
def test_number_bounds_raise_a_value_error_naming_argument_value_and_range(value, bounds, expected):
    with pytest.raises(ValueError, match=rf"^Search\.alpha must be {expected}, got {_shown(value)}$"):
        checks.number(value, "Search.alpha", **bounds)


def test_number_bounds_are_inclusive_except_positive():
    assert checks.number(0, "x", least=0.0, most=1.0) == 0.0
    assert checks.number(1, "x", least=0.0, most=1.0) == 1.0
    assert checks.number(1e-9, "x", positive=True) == 1e-9


# -- known_fields --------------------------------------------------------------------------------


@dataclasses.dataclass
class _Pair:
    left: int = 0
    right: int = 0


@pytest.mark.parametrize("check", [checks.integer, checks.number])
def test_the_bounds_are_keyword_only(check):
    # check(value, name, 0, 5) would read as least=0, most=5 or the other way round: refused.
    with pytest.raises(TypeError, match="positional"):
        check(3, "n", 0, 5)
    assert check(3, "n", least=0, most=5) == 3


def test_known_fields_lists_the_unknown_and_the_known_fields():
    checks.known_fields(_Pair, {})
    checks.known_fields(_Pair, {"left": 1, "right": 2})
    with pytest.raises(ValueError, match=r"^unknown _Pair fields \['middle', 'up'\]; known: left, right$"):
        checks.known_fields(_Pair, {"up": 1, "left": 2, "middle": 3})
    with pytest.raises(TypeError, match=r"_Pair\.from_dict takes a dict"):
        checks.known_fields(_Pair, [("left", 1)])


# -- the configs built on them -------------------------------------------------------------------


def test_go_config_takes_numpy_values_and_equals_the_python_one():
    numpy_config = gojax.GoConfig(size=np.int64(9), komi=np.float32(6.5), max_moves=np.int32(100))
    python_config = gojax.GoConfig(size=9, komi=6.5, max_moves=100)
    assert numpy_config == python_config and hash(numpy_config) == hash(python_config)
    stored = (numpy_config.size, numpy_config.komi, numpy_config.max_moves)
    assert tuple(map(type, stored)) == (int, float, int)
    assert gojax.GoConfig(size=np.int16(9)) == gojax.GoConfig(size=9)
    assert gojax.GoConfig(komi=7) == gojax.GoConfig(komi=7.0)


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"size": 9.0}, r"GoConfig\.size .*9\.0"),
        ({"size": True}, r"GoConfig\.size .*True"),
        ({"size": np.int64(30)}, r"GoConfig\.size must be an int from 2 to 25, got np\.int64\(30\)"),
        ({"komi": "6.5"}, r"GoConfig\.komi .*'6\.5'"),
        ({"max_moves": np.int32(0)}, r"GoConfig\.max_moves .*from 1 to 32767"),
        ({"max_moves": 100.0}, r"GoConfig\.max_moves .*100\.0"),
    ],
)
def test_go_config_reports_a_bad_field_by_name(kwargs, named):
    with pytest.raises(ValueError, match=named):
        gojax.GoConfig(**kwargs)


def test_search_settings_field_is_named_and_numpy_values_are_stored_as_python():
    az = pytest.importorskip("gojax.alphazero")
    with pytest.raises(TypeError, match=r"SearchSettings\.num_simulations must be an int >= 1, got 2\.5"):
        az.SearchSettings(num_simulations=2.5)
    alpha = r"SearchSettings\.dirichlet_alpha must be a finite number > 0, got 0$"
    with pytest.raises(ValueError, match=alpha):
        az.SearchSettings(dirichlet_alpha=0)
    settings = az.SearchSettings(num_simulations=np.int64(8), temperature=np.float32(0.5))
    assert settings == az.SearchSettings(num_simulations=8, temperature=0.5)
    assert hash(settings) == hash(az.SearchSettings(num_simulations=8, temperature=0.5))
    with pytest.raises(ValueError, match=r"unknown SearchSettings fields \['simulations'\]; known: num_sim"):
        az.SearchSettings.from_dict({"simulations": 8})


def test_network_config_field_is_named():
    az = pytest.importorskip("gojax.alphazero")
    with pytest.raises(TypeError, match=r"NetworkConfig\.channels must be an int >= 1, got '32'"):
        az.NetworkConfig(channels="32")
    with pytest.raises(ValueError, match=r"NetworkConfig\.blocks must be an int >= 0, got -1"):
        az.NetworkConfig(blocks=-1)
    with pytest.raises(ValueError, match=r"NetworkConfig\.batch_norm_momentum .*1\.0"):
        az.NetworkConfig(batch_norm_momentum=1.0)
    assert az.NetworkConfig(blocks=np.int64(2)) == az.NetworkConfig(blocks=2)
    with pytest.raises(ValueError, match=r"unknown NetworkConfig fields \['depth'\]; known: blocks, chan"):
        az.NetworkConfig.from_dict({"depth": 3})


def test_train_config_field_is_named():
    training = pytest.importorskip("gojax.training")
    with pytest.raises(TypeError, match=r"TrainConfig\.train_batch must be an int >= 1, got 1\.5"):
        training.TrainConfig(train_batch=1.5)
    with pytest.raises(ValueError, match=r"TrainConfig\.gnugo_games must be an even int >= 0, got 5"):
        training.TrainConfig(gnugo_games=5)
    with pytest.raises(ValueError, match=r"TrainConfig\.minutes must be a finite number >= 0, got -1"):
        training.TrainConfig(minutes=-1)
    with pytest.raises(ValueError, match=r"unknown TrainConfig fields \['epochs'\]; known: "):
        training.TrainConfig.from_dict({"epochs": 3})
    assert training.TrainConfig(batch=np.int64(8)) == training.TrainConfig(batch=8)
