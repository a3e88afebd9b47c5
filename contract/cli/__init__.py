"""The command line: ``chunk-contract`` and its subcommands.

- :mod:`contract.cli.main`: the parser and the dispatch of every subcommand.
- :mod:`contract.cli.run`: the ``run`` command (targets from the command line or pyproject).
- :mod:`contract.cli.check`: the ``check`` and ``replay`` commands.
"""
