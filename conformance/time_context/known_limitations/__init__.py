"""Tests of the time-context README's section "Known limitations and deferred work"."""
