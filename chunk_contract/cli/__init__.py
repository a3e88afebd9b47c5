"""The command line: ``chunk-contract`` and its subcommands.

- :mod:`chunk_contract.cli.main`: the parser and the dispatch of every subcommand.
- :mod:`chunk_contract.cli.run`: the ``run`` command (targets from the command line or pyproject).
- :mod:`chunk_contract.cli.check`: the ``check`` and ``replay`` commands.
"""
