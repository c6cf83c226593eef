"""Alembic migrations of the read model (models/schema.py); run by `clearance db upgrade`
and by `models.database.make_engine`."""
