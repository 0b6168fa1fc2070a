"""Chat model registry: candidate artifacts, their checks and comparison, promotion and rollback."""
