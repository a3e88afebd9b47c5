"""``python -m contract.mutation``: see contract.mutation.running."""

import sys

from contract.mutation.running import main

sys.exit(main())
