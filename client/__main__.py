"""python -m nimmt.client: the same as nimmt-client."""

import sys

from .cli import main

sys.exit(main())
