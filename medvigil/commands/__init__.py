"""One module per ``medvigil`` subcommand; see :mod:`medvigil.cli`."""
