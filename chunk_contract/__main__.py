"""``python -m chunk_contract``: the same as ``chunk-contract``."""

import sys

from chunk_contract.cli.main import main

sys.exit(main())
