"""Saved queue views: a user's named filter sets, stored in the database."""
