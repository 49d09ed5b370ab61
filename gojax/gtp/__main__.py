"""``python -m gojax.gtp``: the GTP engine on stdin/stdout (see :func:`gojax.gtp.main`)."""

import sys

from gojax.gtp import main

sys.exit(main())
