"""Database access: the tables (``schema``, SQLAlchemy Core), the ORM class of the runs repository, which writes
through ORM sessions (``orm``), and engine and session construction (``engine``)."""
