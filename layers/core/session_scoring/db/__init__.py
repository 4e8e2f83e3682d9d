"""Database access: the tables (``schema``, SQLAlchemy Core), the ORM classes of the repositories that write through
ORM sessions (``orm``), and engine and session construction (``engine``)."""
