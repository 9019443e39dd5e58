"""The server's ground floor: the queue manager's data and the rules on it (queues, the store,
named objects, channels' definitions and status, message matching and properties), every
feature's state and defaults (pubsub/, security/), and no verbs. Nothing here imports a
floor above it (pyproject.toml's import-linter contract for the server's floors)."""
