"""The DST regression tables replayed through ``schedule_create``."""
