"""Tests of the time-context README's section "Configuration"."""
