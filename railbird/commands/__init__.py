"""One module per `railbird` subcommand, each with `add_arguments` and `run`."""
