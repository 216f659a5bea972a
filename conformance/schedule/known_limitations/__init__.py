"""Tests of the schedule README's section "Known Limitations and Deferred Work"."""
