"""Tests of the schedule README's section "Durable state"."""
