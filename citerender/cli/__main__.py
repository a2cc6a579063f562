"""``python -m citerender.cli``."""

import sys

from . import main

sys.exit(main())
