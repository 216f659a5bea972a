"""Tests of the time-context README's opening paragraphs."""
