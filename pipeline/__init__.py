"""Railbird's pure domain logic: event contracts, detectors and enforcement policy.

Nothing in this package touches Kafka, HTTP, a database or the environment.
"""
