"""Services: the use cases the edges call (one call per route or per queue record)."""
