"""Traffic simulator: a poker room with personas and planted, labelled offences."""
