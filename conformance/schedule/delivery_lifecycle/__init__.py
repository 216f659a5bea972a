"""Tests of the schedule README's section "Delivery lifecycle"."""
