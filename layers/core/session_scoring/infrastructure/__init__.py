"""Infrastructure adapters: AWS clients, secrets, the scoring queue, database migrations."""
