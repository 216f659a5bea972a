"""Tests of the time-context README's section "Timing semantics"."""
