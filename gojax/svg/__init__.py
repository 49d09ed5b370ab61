"""SVG pictures of boards and feature planes (host side, no JAX work).

::

    from gojax import svg
    svg.SvgBoard.from_state(config, state)                  # renders inline in Jupyter
    text = svg.board_svg(config, state, heatmap=policy)     # policy: [A] (pass shown as text) or [N, N]
    svg.planes_grid_svg(planes, titles=names)               # planes: [N, N, C]
    svg.game_view(record)                                   # a whole game: buttons, slider, animation
    svg.SvgBoard.from_state(config, state).save("board.png")  # PNG: pip install 'gojax[png]'

The board is drawn as a Go player expects: wooden background, grid, star
points, GTP coordinates (columns ``A``-``Z`` without ``I``, row 1 at the
bottom), stones, a ring on the last move, optional move numbers, and an
optional heatmap under the stones (a policy, a value map, a feature plane).

Every element carries a class, so the SVG is easy to test and to restyle:
``stone black``/``stone white`` (circles), ``star`` (circles), ``coord``
(text), ``last-move`` (circle), ``move-number`` (text), ``heat`` (rects),
``heat-label`` (text), ``pass-value`` (text), ``grid`` (path), ``plane`` (a
group per feature plane), ``title`` (text).
"""

from gojax.svg._board import SvgBoard, board_svg, star_points
from gojax.svg._game import GameView, game_view
from gojax.svg._planes import planes_grid_svg
from gojax.svg._png import png_size, svg_to_png

__all__ = [
    "GameView",
    "SvgBoard",
    "board_svg",
    "game_view",
    "planes_grid_svg",
    "png_size",
    "star_points",
    "svg_to_png",
]
