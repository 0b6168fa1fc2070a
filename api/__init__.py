"""The FastAPI review API, its database, the review console and the enforcement outbox."""
