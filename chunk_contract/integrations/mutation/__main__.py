"""``python -m chunk_contract.integrations.mutation``: see
chunk_contract.integrations.mutation.running."""

import sys

from chunk_contract.integrations.mutation.running import main

sys.exit(main())
