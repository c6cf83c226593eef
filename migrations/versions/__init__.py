"""One file per schema revision (Alembic skips this file)."""
