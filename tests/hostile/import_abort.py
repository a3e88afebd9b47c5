"""A plugin module whose import crashes the process that imports it (SIGABRT)."""

import os

os.abort()
