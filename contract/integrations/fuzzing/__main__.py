"""``python -m contract.integrations.fuzzing``: the same as ``chunk-contract fuzz``."""

import sys

from contract.integrations.fuzzing.cli import main

sys.exit(main(prog="python -m contract.integrations.fuzzing"))
