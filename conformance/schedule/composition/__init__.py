"""Tests of the schedule README's section "Composition"."""
