"""Configuration: the typed runtime settings (``settings``), the scoring criteria file (``criteria``) and the
``${VAR}`` substitution its values use (``variables``)."""
