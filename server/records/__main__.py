"""python -m nimmt.server.records: the same as nimmt-replay."""

import sys

from .replay import main

sys.exit(main())
