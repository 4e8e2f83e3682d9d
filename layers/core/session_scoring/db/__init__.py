"""Database access: ORM rows (``schema``) and engine/session construction (``engine``)."""
