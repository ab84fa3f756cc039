"""``python -m graphmem.cli``: the same as the ``graphmem`` command."""

import sys

from graphmem.cli import main

sys.exit(main())
