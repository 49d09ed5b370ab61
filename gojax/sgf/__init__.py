"""SGF game records (FF[4]), host side: read, replay through gojax, write.

Reading::

    record = gojax.sgf.read_sgf("game.sgf")       # or parse_sgf(text_or_bytes, name=...)
    record.config                                  # GoConfig(size=SZ, komi=KM, ko_rule="positional")
    record.setup                                   # int8[N, N] AB/AW stones, row 0 at the top
    record.moves                                   # [(colour, action), ...], colour 1 black / 2 white
    final = record.replay()                        # the GoState after the last move
    states = record.states_along()                 # GoState batched [T + 1]: start, then after each move

Writing::

    text = gojax.sgf.to_sgf(config, actions, result="B+3.5")
    gojax.sgf.write_sgf(record, "copy.sgf")        # atomic: temporary file, then os.replace
    gojax.sgf.games_to_sgf(config, actions_BT, "games/", lengths=lengths, results=results)

Example records: ``gojax.sgf.example_games()`` lists the paths of five 9x9
games (gojax's AlphaZero player against GNU Go) that ship with the package.

What is read (of the **main line**: the first child at every branch;
variations are skipped and counted in ``record.variations``):

* ``GM`` must be 1 (Go); ``SZ`` (default 19) square and at most 25;
  ``KM`` komi as recorded (default 0, and ``record.komi_recorded`` is
  ``None``). Fox (foxwq) files store komi x100 (``KM[650]`` is 6.5) and, under
  Chinese rules, in stones (``KM[375]`` is 3.75 stones = 7.5 points):
  ``parse_sgf(..., fox_komi=True)`` converts (see :func:`fox_komi`); it is
  never done silently.
* ``AB``/``AW``/``AE`` setup stones (point lists and ``aa:cc`` rectangles) in
  the root or in any node before the first move; ``PL`` the first player.
* ``B``/``W`` moves; a pass is ``[]``, or ``[tt]`` on boards up to 19x19.
* ``RU``: a KataGo rules string (``koPOSITIONALscoreAREAtaxNONEsui0``, as
  written here) sets ``ko_rule`` and ``suicide``; any other text (Japanese,
  Chinese, ...) leaves the defaults (positional superko, no suicide); the
  ``ko_rule`` argument overrides both.
* Every other single-valued root property (``PB``, ``PW``, ``RE``, ``RU``,
  ``HA``, ``DT``, ``EV``, ...) lands in ``record.metadata`` as text (``CA``
  gives the character set, UTF-8 by default; undecodable bytes become U+FFFD).
  Everything else (comments, markup, timing, unknown properties) is ignored
  and counted in ``record.ignored``.

Errors: what stops the moves from being replayed (syntax, bad coordinates
of a move or setup stone, ``GM`` not 1, ``SZ`` over 25 or not square, setup
stones after the first move, a file over ``max_bytes``) raises
:class:`SGFError` (a ``ValueError``) naming the file, the line/column or move
number and the problem; so do replay errors (a move on an occupied point,
suicide, a ko or superko repeat, a colour playing twice, play after two
passes).

Records from the wild: reading is **lenient by default**. A property gojax
does not need to replay the moves that cannot be read is left out with an
:class:`SGFWarning` (``warnings.warn``, naming the file, line, property and
value; the message is also kept in ``record.warnings``) and the moves are
read: ``KM`` that is not a number (``KM[3又3/4]``: komi 0, as without ``KM``),
``PL`` that is not ``B`` or ``W`` (the first move decides). Setup stones and
a move in one node before the first move (FF[4] forbids it; some records put
``AB`` handicap stones and the first move in the root) follow the same rule:
the setup stones are placed first, then the move is played, with a warning.
``parse_sgf(..., strict=True)`` (and ``read_sgf``) raises :class:`SGFError`
for each of these instead. To turn the warnings into errors for a whole
program, ``warnings.simplefilter("error", gojax.sgf.SGFWarning)``.
"""

from gojax._host.atomic import atomic_write
from gojax._host.results import result_string, winner_of_result
from gojax.sgf._examples import example_games
from gojax.sgf._parse import MAX_SGF_BYTES, SGFError, SGFWarning
from gojax.sgf._read import fox_komi, parse_sgf, parse_sgf_collection, read_sgf
from gojax.sgf._record import GameRecord
from gojax.sgf._write import (
    games_to_sgf,
    parse_rules_string,
    rules_string,
    sgf_point,
    to_sgf,
    write_sgf,
)

__all__ = [
    "MAX_SGF_BYTES",
    "GameRecord",
    "SGFError",
    "SGFWarning",
    "atomic_write",
    "example_games",
    "fox_komi",
    "games_to_sgf",
    "parse_rules_string",
    "parse_sgf",
    "parse_sgf_collection",
    "read_sgf",
    "result_string",
    "rules_string",
    "sgf_point",
    "to_sgf",
    "winner_of_result",
    "write_sgf",
]
