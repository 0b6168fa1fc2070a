"""Detectors, one module per offence; they are wired together only in `pipeline.registry`."""
