"""Run directories on disk: the records schema, chunk files, manifests.

The one place that knows how a run directory is laid out (see
:mod:`sims.runner` for how it is played)::

    OUT/manifest.json                                  what was run, and what is finished
    OUT/records/r{rotation}-{start:09d}-{stop:09d}.parquet   one file per chunk
    OUT/events/r{rotation}-{start:09d}-{stop:09d}.parquet    the same chunk's events, if the game has any

The runner writes through it, analysis reads through it. It imports neither
click nor the parallel backends.
"""

from __future__ import annotations

import json
import os
import platform
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from sims.core.engine import GameResults
from sims.core.files import exclusive, is_temporary, write_json, write_parquet
from sims.core.spec import ConfigError

if TYPE_CHECKING:
    from sims.core.play import BotChoice

MANIFEST = "manifest.json"
RECORDS = "records"
EVENTS = "events"
_CHUNK_NAME = re.compile(r"^r(\d+)-(\d{9})-(\d{9})\.parquet$")

# Records columns every game has, in order, with their dtypes; the engine's
# seat and game columns follow.
BASE_COLUMNS: dict[str, pl.DataType] = {
    "game": pl.Int64,
    "deal": pl.Int64,
    "rotation": pl.Int8,
    "seed": pl.UInt64,
    "seat": pl.Int8,
    "bot": pl.String,
    "score": pl.Float64,
    "rank": pl.Int8,
    "win": pl.Boolean,
    "tie": pl.Boolean,
    "turns": pl.Int32,
    "end": pl.String,
}


@dataclass(frozen=True, order=True)
class Chunk:
    """Deals ``[start, stop)`` of one rotation."""

    rotation: int
    start: int
    stop: int

    @property
    def name(self) -> str:
        return f"r{self.rotation}-{self.start:09d}-{self.stop:09d}.parquet"

    @property
    def deals(self) -> int:
        return self.stop - self.start

    @classmethod
    def parse(cls, name: str) -> Chunk | None:
        match = _CHUNK_NAME.match(name)
        return cls(*(int(g) for g in match.groups())) if match else None


# ---------------------------------------------------------------- writing


def records_frame(
    engine_end_reasons: Sequence[str],
    results: GameResults,
    choices: Sequence[BotChoice],
    seeds: np.ndarray,
    deals: np.ndarray,
    rotation: int,
    rotations: int,
) -> pl.DataFrame:
    """One row per game and seat, ``(game, seat)`` ascending."""
    size, players = results.score.shape
    per_seat = lambda column: np.repeat(np.asarray(column), players)  # noqa: E731 (one game value per seat row)
    rank = np.asarray(results.rank, dtype=np.int8)
    first = rank == 1
    shared = (first.sum(axis=1) > 1)[:, None] & first
    end_names = np.asarray(engine_end_reasons, dtype=object)[np.asarray(results.end, dtype=np.int64)]
    columns: dict[str, Any] = {
        "game": pl.Series(per_seat(deals * rotations + rotation), dtype=pl.Int64),
        "deal": pl.Series(per_seat(deals), dtype=pl.Int64),
        "rotation": pl.Series(np.full(size * players, rotation), dtype=pl.Int8),
        "seed": pl.Series(per_seat(seeds), dtype=pl.UInt64),
        "seat": pl.Series(np.tile(np.arange(players), size), dtype=pl.Int8),
        "bot": pl.Series(np.tile(np.asarray([c.label for c in choices], dtype=object), size), dtype=pl.String),
        "score": pl.Series(np.asarray(results.score, dtype=np.float64).reshape(-1), dtype=pl.Float64),
        "rank": pl.Series(rank.reshape(-1), dtype=pl.Int8),
        "win": pl.Series(first.reshape(-1), dtype=pl.Boolean),
        "tie": pl.Series(shared.reshape(-1), dtype=pl.Boolean),
        "turns": pl.Series(per_seat(results.turns), dtype=pl.Int32),
        "end": pl.Series(per_seat(end_names), dtype=pl.String),
    }
    for name, values in results.seat_columns.items():
        columns[_extra_name(name, columns)] = np.asarray(values).reshape(-1)
    for name, values in results.game_columns.items():
        columns[_extra_name(name, columns)] = per_seat(values)
    frame = pl.DataFrame(columns)
    # A stall has no result: rank 0 from the engine becomes null.
    return frame.with_columns(pl.when(pl.col("rank") > 0).then(pl.col("rank")).otherwise(None).alias("rank"))


def _extra_name(name: str, columns: dict) -> str:
    if name in columns:
        raise ValueError(f"engine column {name!r} clashes with a records column")
    return name


def write_chunk(out_dir: Path, chunk: Chunk, records: pl.DataFrame, events: pl.DataFrame | None) -> None:
    """Events first, then records: a records file on disk marks a finished chunk."""
    if events is not None:
        write_parquet(events, Path(out_dir) / EVENTS / chunk.name)
    write_parquet(records, Path(out_dir) / RECORDS / chunk.name)


def tidy(out: Path, finished: Sequence[Chunk]) -> None:
    """Remove what a stopped run left half-done: temporary files, and events files
    whose chunk has no records file (stopped between the two writes)."""
    names = {c.name for c in finished}
    for kind in (RECORDS, EVENTS):
        folder = out / kind
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            stale = is_temporary(path)
            orphan = kind == EVENTS and Chunk.parse(path.name) is not None and path.name not in names
            if stale or orphan:
                path.unlink()


# ---------------------------------------------------------------- manifests and provenance


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        glade = version("glade")
    except PackageNotFoundError:
        glade = "unknown"
    return {"glade": glade, "python": platform.python_version(), "numpy": np.__version__, "polars": pl.__version__}


def machine(backend: str | None = None, jobs: int = 1, scheduler: str | None = None) -> str:
    """Where the latest games of a run were played, for its report; without a backend, this machine alone."""
    host = f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    if backend is None and scheduler is None:
        return host
    where = f"Dask scheduler {scheduler}" if scheduler else f"{backend} with {jobs} worker{'s' if jobs > 1 else ''}"
    return f"{host}; {where}"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_manifest(manifest: dict, out_dir: str | Path) -> None:
    """Write a run's manifest (atomically)."""
    write_json(manifest, Path(out_dir) / MANIFEST)


def read_manifest(out_dir: str | Path) -> dict | None:
    """The manifest in ``out_dir``, or None if there is none; a file that is not JSON is refused."""
    path = Path(out_dir) / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ConfigError(str(path), "(syntax)", f"a manifest written by glade ({error})", has_got=False) from None


def recorded_rotations(out_dir: str | Path) -> int | None:
    """The rotations the manifest in ``out_dir`` records, or None if there is no readable manifest."""
    try:
        return int(json.loads((Path(out_dir) / MANIFEST).read_text())["rotations"])
    except (OSError, ValueError, KeyError):
        return None


# ---------------------------------------------------------------- reading runs


def finished_chunks(out_dir: Path) -> list[Chunk]:
    """Chunks whose records file is on disk."""
    folder = Path(out_dir) / RECORDS
    if not folder.is_dir():
        return []
    return sorted(c for c in (Chunk.parse(p.name) for p in folder.iterdir()) if c is not None)


def _chunk_parts(out_dir: str | Path, kind: str) -> list[tuple[Path, Chunk, int]]:
    """The chunk files of a run with, for each, the first deal it alone provides.

    Chunks never overlap in a run played by one process at a time, but a run
    killed while its workers went on (or two runs on one directory) can leave
    overlapping ranges; their games are identical, so each deal is read once,
    from the first chunk (by start) that covers it.
    """
    folder = Path(out_dir) / kind
    if not folder.is_dir():
        return []
    chunks = sorted((c, p) for c, p in ((Chunk.parse(p.name), p) for p in folder.iterdir()) if c is not None)
    parts, cursor = [], {}
    for chunk, path in chunks:
        keep_from = max(chunk.start, cursor.get(chunk.rotation, 0))
        if keep_from < chunk.stop:
            parts.append((path, chunk, keep_from))
        cursor[chunk.rotation] = max(cursor.get(chunk.rotation, 0), chunk.stop)
    return parts


def load_manifest(out_dir: str | Path) -> dict:
    path = Path(out_dir) / MANIFEST
    if not path.exists():
        raise ConfigError(str(path), "(file)", "a run directory written by glade play", has_got=False)
    return json.loads(path.read_text())


def set_manifest_key(out_dir: str | Path, key: str, value: Any) -> None:
    """Set one key of a run's manifest (under the run directory's lock); later runs on it keep ``stopping``."""
    out = Path(out_dir)
    with exclusive(out, "run directory"):
        manifest = load_manifest(out)
        manifest[key] = value
        write_json(manifest, out / MANIFEST)


def load_records(out_dir: str | Path) -> pl.DataFrame:
    """All finished chunks of a run, sorted by ``(game, seat)``."""
    return scan_records(out_dir).collect().sort("game", "seat")


def scan_records(out_dir: str | Path) -> pl.LazyFrame:
    """The run's records as a lazy frame (not sorted): summaries of huge runs stream through it."""
    parts = _chunk_parts(out_dir, RECORDS)
    if not parts:
        raise ConfigError(str(Path(out_dir) / RECORDS), "(files)", "chunk files written by glade play",
                          has_got=False)
    frames = []
    for path, chunk, keep_from in parts:
        frame = pl.scan_parquet(path, glob=False)  # a folder name may hold [ ] (cell ids)
        frames.append(frame if keep_from == chunk.start else frame.filter(pl.col("deal") >= keep_from))
    return pl.concat(frames, how="vertical")


def load_events(out_dir: str | Path) -> pl.DataFrame | None:
    """The run's events table sorted by ``game`` (stable), or None if the game writes none."""
    parts = _chunk_parts(out_dir, EVENTS)
    if not parts:
        return None
    rotations = int(load_manifest(out_dir)["rotations"])
    frames = []
    for path, chunk, keep_from in parts:
        frame = pl.read_parquet(path, glob=False)
        first_game = keep_from * rotations + chunk.rotation
        frames.append(frame if keep_from == chunk.start else frame.filter(pl.col("game") >= first_game))
    return pl.concat(frames, how="vertical").sort("game", maintain_order=True)
