"""``python -m contract.integrations.mutation``: see contract.integrations.mutation.running."""

import sys

from contract.integrations.mutation.running import main

sys.exit(main())
