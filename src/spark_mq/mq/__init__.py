"""Plain Python over IBM's `ibmmq` (or `pymqi`): sessions, gets, puts, units of work.

Nothing here imports Spark."""
