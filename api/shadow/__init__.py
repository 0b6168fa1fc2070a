"""Shadow findings: what candidate detectors would have found and done, stored apart from cases."""
