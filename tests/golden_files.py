"""Golden playthroughs: a seeded game rendered to text, compared with the file kept in tests/golden/."""

import os
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def assert_golden(name: str, text: str) -> None:
    """``text`` equals ``tests/golden/<name>``; after an intended rules change: GLADE_UPDATE_GOLDEN=1 make golden."""
    path = GOLDEN / name
    if os.environ.get("GLADE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"no golden file {path}: run GLADE_UPDATE_GOLDEN=1 make golden"
    assert text == path.read_text(), f"{name} changed: if intended, GLADE_UPDATE_GOLDEN=1 make golden"
