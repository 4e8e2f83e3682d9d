"""Repositories: the only code that speaks SQL. They take and return API/domain models, never ORM rows."""
