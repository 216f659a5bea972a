"""Tests of the time-context README's section "Model experience"."""
