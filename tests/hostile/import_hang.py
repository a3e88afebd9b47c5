"""A plugin module whose import never finishes."""

import time

while True:
    time.sleep(0.01)
