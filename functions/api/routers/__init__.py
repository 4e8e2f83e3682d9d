"""One APIRouter per resource. No ``from __future__ import annotations`` in them: FastAPI would evaluate each
parameter annotation from its string at import (cold init; see ``models/api.py``)."""
