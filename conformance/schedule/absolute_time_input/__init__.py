"""Tests of the schedule README's section "Absolute-time input"."""
