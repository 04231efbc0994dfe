"""`python -m twnb.confine -f CONNECTION_FILE`: start a confined kernel (launcher.py)."""

import sys

from twnb.confine.launcher import main

sys.exit(main())
