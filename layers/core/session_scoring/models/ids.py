"""Identifier formats the API and the core both check, in a module of their own: the API's path parameters need
them to build the app, where importing the API's models (``models/api.py``) would add to the API's cold init."""

SESSION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
"""A session id at its source: letters, digits, '.', '_', ':', '-'; at most 128, starting with a letter or digit."""
