# Puts this folder on sys.path (rootdir conftest), so tests can import chunker.
