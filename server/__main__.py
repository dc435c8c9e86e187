"""python -m nimmt.server: the same as nimmt-server."""

import sys

from .cli import main

sys.exit(main())
