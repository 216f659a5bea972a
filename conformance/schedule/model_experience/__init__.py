"""Tests of the schedule README's section "Model Experience"."""
