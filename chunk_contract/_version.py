"""The package's version: the installed distribution's, else the source tree's."""

#: The version of the source tree (pyproject.toml's ``version``).
SOURCE_VERSION = "0.1.0"


def version() -> str:
    """The installed distribution's version, else the source tree's (``importlib.metadata``
    is imported here, on first use: it costs a run's start-up tens of milliseconds)."""
    import importlib.metadata

    try:
        return importlib.metadata.version("chunk-contract")
    except importlib.metadata.PackageNotFoundError:
        return SOURCE_VERSION
