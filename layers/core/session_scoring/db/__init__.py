"""Database access: the tables (``schema``, SQLAlchemy Core) and the engines (``engine``)."""
