"""A plugin module whose import ends the process that imports it, with status 0."""

import os

os._exit(0)
