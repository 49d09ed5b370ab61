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
* :class:`TreeSearchSettings` - its frozen, validated settings.
* :class:`SearchStats` - the root statistics a search returns.
"""

from gojax.search._search import TreeSearch
from gojax.search._settings import TreeSearchSettings
from gojax.search._stats import SearchStats

__all__ = ["SearchStats", "TreeSearch", "TreeSearchSettings"]
