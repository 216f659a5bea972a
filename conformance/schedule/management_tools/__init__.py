"""Tests of the schedule README's section "Management tools"."""
