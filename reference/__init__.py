"""Reference implementation of the DSH dsh-schedule and dsh-time-context plugins."""
