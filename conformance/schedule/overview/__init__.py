"""Tests of the schedule README's opening paragraphs."""
