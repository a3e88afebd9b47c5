"""``python -m chunk_contract.integrations.fuzzing``: the same as ``chunk-contract fuzz``."""

import sys

from chunk_contract.integrations.fuzzing.cli import main

sys.exit(main(prog="python -m chunk_contract.integrations.fuzzing"))
