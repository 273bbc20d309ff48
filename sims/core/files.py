"""Files that survive a kill: atomic writes and a directory lock.

Every file Glade writes goes under a temporary name in the same folder and
is then renamed, so a file on disk is always whole, whatever moment a run is
killed at.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import polars as pl
import pyarrow as pa

from sims.core.spec import ConfigError


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def is_temporary(path: Path) -> bool:
    """A leftover of a write that a kill interrupted."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


def write_parquet(frame: pl.DataFrame, path: Path, descriptions: Mapping[str, str] | None = None) -> None:
    """Write ``frame`` atomically; ``descriptions`` go into the Parquet schema as each field's ``description``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(path)
    schema = None
    if descriptions:
        fields = frame.head(0).to_arrow().schema
        schema = pa.schema([f.with_metadata({"description": descriptions[f.name]}) if f.name in descriptions
                            else f for f in fields])
    frame.write_parquet(temporary, arrow_schema=schema)
    os.replace(temporary, path)


def write_json(data: dict, path: Path) -> None:
    temporary = _temporary(path)
    with open(temporary, "w") as handle:
        json.dump(data, handle, indent=2, default=str)
        handle.write("\n")
    os.replace(temporary, path)


@contextlib.contextmanager
def exclusive(folder: Path, what: str) -> Iterator[None]:
    """Hold ``folder/.lock`` (flock) for the block; another holder gets a ConfigError naming ``what``."""
    handle = open(folder / ".lock", "w")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(str(folder), "(lock)", f"a {what} no other glade command is writing to",
                              has_got=False) from None
        yield
    finally:
        handle.close()
