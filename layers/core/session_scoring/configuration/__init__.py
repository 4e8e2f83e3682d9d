"""Configuration: the typed runtime settings and the scoring criteria file."""
