"""Session sources: where completed investigations are read from."""
