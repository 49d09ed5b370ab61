"""Monte-Carlo tree search with RAVE for one game, with batched playouts.

Import explicitly (``from gojax.search import TreeSearch``); ``import gojax``
does not load this package. A host-side search: the tree is NumPy on the
host, and each batch step expands many leaves and runs many playouts in one
compiled call. ::

    search = TreeSearch(config, TreeSearchSettings(), seed=0)
    search.warm_up()
    search.set_root(state)
    stats = search.search(seconds=1.0)
    stats.best_action

* :class:`TreeSearch` - the search (``warm_up``, ``set_root``, ``search``, ``stats``).
* :class:`TreeSearchSettings` - its frozen, validated settings
  (:data:`PRIOR_VISITS`, :data:`GUIDED_PRIOR_VISITS`: the prior's default
  weight without and with a guide).
* :class:`SearchStats` - the root statistics a search returns.
* :func:`komi_offset` - the dynamic komi of ``TreeSearchSettings.dynamic_komi``.
"""

from gojax.search._komi import komi_offset
from gojax.search._search import TreeSearch
from gojax.search._settings import GUIDED_PRIOR_VISITS, PRIOR_VISITS, TreeSearchSettings
from gojax.search._stats import SearchStats

__all__ = [
    "GUIDED_PRIOR_VISITS",
    "PRIOR_VISITS",
    "SearchStats",
    "TreeSearch",
    "TreeSearchSettings",
    "komi_offset",
]
