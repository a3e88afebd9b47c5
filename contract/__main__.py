"""``python -m contract``: the same as ``chunk-contract``."""

import sys

from contract.cli.main import main

sys.exit(main())
