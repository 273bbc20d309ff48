"""Run directories on disk: the records schema, chunk files, manifests.

The one place that knows how a run directory is laid out (see
:mod:`sims.runner` for how it is played)::

    OUT/manifest.json                                  what was run, and what is finished
    OUT/records/r{rotation}-{start:09d}-{stop:09d}.parquet   one file per chunk
    OUT/events/r{rotation}-{start:09d}-{stop:09d}.parquet    the same chunk's events, if the game has any
    OUT/trajectories/r{rotation}-{start:09d}-{stop:09d}.parquet  each seat's score at each round end, likewise

The runner writes through it, analysis reads through it. It imports neither
click nor the parallel backends.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from sims.core.engine import GameResults
from sims.core.files import (Maybe, Opt, Where, exclusive, is_temporary, read_state, remove_temporaries, shape_problem,
                              state_error, write_json, write_parquet)
from sims.core.spec import ConfigError

if TYPE_CHECKING:
    from sims.core.columns import Dictionary
    from sims.core.play import BotChoice

MANIFEST = "manifest.json"
RECORDS = "records"
EVENTS = "events"
TRAJECTORIES = "trajectories"
# Tables written beside a chunk's records (before them), one row per event or per round and seat, with a game column.
SIDE_TABLES = (EVENTS, TRAJECTORIES)
DAMAGED = "damaged"
_CHUNK_NAME = re.compile(r"^r(\d+)-(\d{9})-(\d{9})\.parquet$")

# The most deals a run may hold: chunk file names write deal numbers in 9 digits.
MAX_DEALS = 999_999_999
# Deals read at a time by the block readers (a few MB of records columns for 2-player games): a report, a
# summary, a sweep's cells and a tune's looks hold one block at a time, whatever the run's size.
BLOCK_DEALS = 1 << 14
# The first deals a report's detail analyses read (those that need every game's rows or events; glade report
# --detail-deals); every other figure reads every deal, a block at a time.
DETAIL_DEALS = 100_000

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


def write_chunk(out_dir: Path, chunk: Chunk, records: pl.DataFrame, events: pl.DataFrame | None,
                columns: Dictionary | None = None, trajectories: pl.DataFrame | None = None) -> None:
    """Events and trajectories first, then records: a records file on disk marks a finished chunk.

    ``columns`` (the game's data dictionary) describes each column in the files' Parquet schema.
    """
    described = (lambda kind: columns.descriptions(kind)) if columns is not None else (lambda kind: None)
    for kind, table in ((EVENTS, events), (TRAJECTORIES, trajectories)):
        if table is not None:
            write_parquet(table, Path(out_dir) / kind / chunk.name, described(kind))
    write_parquet(records, Path(out_dir) / RECORDS / chunk.name, described(RECORDS))


def trajectories_frame(progress: dict[str, np.ndarray] | None, deals: np.ndarray, rotation: int,
                       rotations: int) -> pl.DataFrame | None:
    """The trajectories table of a chunk from a trace's ``progress`` (batch game indices become the records'
    ``game`` ids), or None when the engine records none."""
    if progress is None:
        return None
    game = deals[np.asarray(progress["game"], dtype=np.int64)] * rotations + rotation
    return pl.DataFrame({"game": pl.Series(game, dtype=pl.Int64),
                         "round": pl.Series(progress["round"], dtype=pl.Int16),
                         "seat": pl.Series(progress["seat"], dtype=pl.Int8),
                         "value": pl.Series(progress["value"], dtype=pl.Float64)})


def tidy(out: Path, finished: Sequence[Chunk]) -> None:
    """Remove what a stopped run left half-done: temporary files (a manifest's, a chunk's), and events files
    or trajectories files whose chunk has no records file (stopped between the writes)."""
    remove_temporaries(out)
    names = {c.name for c in finished}
    for kind in (RECORDS, *SIDE_TABLES):
        folder = out / kind
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            stale = is_temporary(path)
            orphan = kind != RECORDS and Chunk.parse(path.name) is not None and path.name not in names
            if stale or orphan:
                path.unlink()


# ---------------------------------------------------------------- manifests and provenance


def glade_version() -> str:
    """The installed glade package's version (``pip install -e .`` records it), or "unknown"."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("glade")
    except PackageNotFoundError:
        return "unknown"


def versions() -> dict[str, str]:
    """What a manifest records of the software that played it."""
    return {"glade": glade_version(), "python": platform.python_version(), "numpy": np.__version__,
            "polars": pl.__version__}


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
    """The manifest in ``out_dir``, or None if there is none; a file that is not a manifest is refused."""
    path = Path(out_dir) / MANIFEST
    manifest = read_state(path, MANIFEST_SHAPE, "manifest", "play")
    if manifest is not None:
        check_manifest(manifest, path)
    return manifest


# Shapes of state-file values (sims.core.files.read_state) that every state file uses.
SEED_SHAPE = Where(int, lambda value: 0 <= value < 2**64, "an integer from 0 to 2^64 - 1")
COUNT_SHAPE = Where(int, lambda value: value >= 1, "an integer of at least 1")
BOTS_SHAPE = Where([str], bool, "a list of bot names")


def _stopping_whole(stopping: dict) -> bool:
    """A ``stopping`` record holds the keys of its rule (analysis.stopping.stopping_record)."""
    keys = ("margin", "decision", "alpha", "beta") if "margin" in stopping else (
        "target_half_width", "final_half_width", "confidence")
    return all(key in stopping for key in keys)


# The keys every manifest holds, with their JSON types, and the optional ones code reads back.
MANIFEST_SHAPE: dict[str, Any] = {
    "game": str,
    "players": COUNT_SHAPE,
    "seed": SEED_SHAPE,
    "games": COUNT_SHAPE,
    "rotate_seats": bool,
    "config_hash": str,
    "bots": BOTS_SHAPE,
    "rotations": Opt(COUNT_SHAPE),
    "digests": Opt(Where(dict, lambda value: all(isinstance(v, str) for v in value.values()),
                         "a table of chunk file names and their sha256")),
    "chunks": Opt([str]),
    "trajectories": Opt(bool),
    "created": Opt(str),
    "config": Opt(dict),
    "rotations_collapsed": Opt(str),
    "bot_streams": Opt(str),
    "stopping": Opt(Where({"rule": str, "method": str, "deals": COUNT_SHAPE, "outcome": str, "looks": [{"deals": int}],
                           "games": Opt(int), "max_games": Opt(Maybe(int)), "confidence": Opt(float),
                           "target_half_width": Opt(float), "final_half_width": Opt(float), "margin": Opt(float),
                           "decision": Opt(str), "alpha": Opt(float), "beta": Opt(float), "earlier": Opt([dict])},
                          _stopping_whole, "the record of glade play --until-ci (target_half_width, final_half_width, "
                          "confidence) or --until-decided (margin, decision, alpha, beta)")),
}


def check_manifest(manifest: Any, path: Path) -> None:
    """A ConfigError naming ``path`` unless ``manifest`` has the shape glade writes (a JSON object with its keys,
    as many seat bots as players, rotations 1 or the players)."""
    problem = shape_problem(manifest, MANIFEST_SHAPE, "(top level)")
    if problem is not None:
        raise state_error(path, *problem[:2], "manifest", "play", problem[2])
    if len(manifest["bots"]) < manifest["players"]:
        raise state_error(path, "bots", f"a bot for each of the {manifest['players']} players", "manifest", "play",
                          manifest["bots"])
    rotations = (1, manifest["players"]) if manifest["rotate_seats"] else (1,)
    if manifest.get("rotations", 1) not in rotations:
        raise state_error(path, "rotations", " or ".join(map(str, rotations)) + " (1, or players with rotate_seats)",
                          "manifest", "play", manifest["rotations"])


def recorded_rotations(out_dir: str | Path) -> int | None:
    """The rotations the manifest in ``out_dir`` records, or None if there is no readable manifest."""
    try:
        return int(json.loads((Path(out_dir) / MANIFEST).read_text())["rotations"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


# ---------------------------------------------------------------- checking chunk files


def chunk_problem(path: Path, chunk: Chunk, seats: int | None) -> str | None:
    """Why a records or events chunk file cannot be used, or None if it is whole.

    Whole means a readable Parquet footer and, for records (``seats`` given),
    one row per deal and seat of the chunk's range.
    """
    import pyarrow.parquet as pq

    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        return f"not a readable Parquet file: {error}"
    if seats is not None and rows != chunk.deals * seats:
        return f"{rows} rows where deals {chunk.start}-{chunk.stop - 1} make {chunk.deals * seats}"
    return None


def file_digest(path: Path) -> str:
    """The sha256 of a file's bytes (hex): what a manifest's ``digests`` records of each chunk file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def chunk_files(out: Path, chunk: Chunk) -> list[str]:
    """The chunk's files on disk, as ``records/NAME``, ``events/NAME`` and ``trajectories/NAME`` (the keys of a
    manifest's ``digests``)."""
    return [f"{kind}/{chunk.name}" for kind in (*SIDE_TABLES, RECORDS) if (out / kind / chunk.name).exists()]


def set_aside_damaged(out: Path, seats: int, warn: Any, digests: dict[str, str] | None = None) -> list[Chunk]:
    """Move every damaged records or events chunk file to ``out/damaged/``; the chunks to replay.

    Damaged: an unreadable footer, records of the wrong row count, or bytes
    whose sha256 differs from the one ``digests`` (the manifest's) holds.
    ``warn(line)`` is told each file moved, one line each. A chunk is replayed
    whole (records and events) when either of its files is damaged.
    """
    damaged = []
    for kind in (RECORDS, *SIDE_TABLES):
        folder = out / kind
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            chunk = Chunk.parse(path.name)
            problem = None if chunk is None else chunk_problem(path, chunk, seats if kind == RECORDS else None)
            recorded = (digests or {}).get(f"{kind}/{path.name}")
            if problem is None and recorded is not None and file_digest(path) != recorded:
                problem = "its bytes differ from the sha256 manifest.json recorded when it was written"
            if problem is None:
                continue
            aside = _aside(out / DAMAGED / kind / path.name)
            aside.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, aside)
            warn(f"warning: {path} is damaged ({problem}); moved to {aside}, its deals are played again")
            damaged.append(chunk)
    for chunk in damaged:  # the other file of a damaged chunk goes too, to be written afresh
        for kind in (RECORDS, *SIDE_TABLES):
            other = out / kind / chunk.name
            if other.exists():
                other.unlink()
    return sorted(set(damaged))


def _aside(path: Path) -> Path:
    number = 1
    candidate = path
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{number}")
        number += 1
    return candidate


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
    seats = _seats(out_dir) if kind == RECORDS else None
    parts, cursor = [], {}
    for chunk, path in chunks:
        problem = chunk_problem(path, chunk, seats)
        if problem is not None:
            raise ConfigError(str(path), "(file)", f"a whole chunk written by glade play, not a damaged one "
                              f"({problem}); run the same glade play command again to replay it", has_got=False)
        keep_from = max(chunk.start, cursor.get(chunk.rotation, 0))
        if keep_from < chunk.stop:
            parts.append((path, chunk, keep_from))
        cursor[chunk.rotation] = max(cursor.get(chunk.rotation, 0), chunk.stop)
    return parts


def _seats(out_dir: str | Path) -> int | None:
    """Records rows per game (the manifest's seat bots), or None without a readable manifest."""
    try:
        manifest = read_manifest(out_dir)
    except ConfigError:
        return None
    return len(manifest["bots"]) if manifest else None


def load_manifest(out_dir: str | Path) -> dict:
    """The manifest of a run directory; a ConfigError if there is none or it is not one glade wrote."""
    path = Path(out_dir) / MANIFEST
    if not path.exists():
        raise ConfigError(str(path), "(file)", "a run directory written by glade play", has_got=False)
    manifest = read_manifest(out_dir)
    assert manifest is not None
    return manifest


def set_manifest_key(out_dir: str | Path, key: str, value: Any) -> None:
    """Set one key of a run's manifest (under the run directory's lock); later runs on it keep ``stopping``."""
    out = Path(out_dir)
    with exclusive(out, "run directory"):
        manifest = load_manifest(out)
        manifest[key] = value
        write_json(manifest, out / MANIFEST)


def load_records(out_dir: str | Path, deals: int | None = None) -> pl.DataFrame:
    """All finished chunks of a run (or its deals below ``deals``), sorted by ``(game, seat)``: read and sorted a
    block of deals at a time (a block's games are one run of game ids), so reading takes little more memory than
    the table."""
    frame = scan_records(out_dir, None if deals is None else (0, deals))  # a ConfigError when the run has no chunk
    stop = max((stop for _, stop in deal_ranges(out_dir)), default=0)
    stop = stop if deals is None else min(stop, deals)
    blocks = [block.sort("game", "seat") for _, _, block in record_blocks(out_dir, block_bounds(0, stop))]
    return pl.concat(blocks, how="vertical") if blocks else frame.collect()


def _scan_parts(parts: Sequence[tuple[Path, Chunk, int]], deals: tuple[int, int] | None) -> list[pl.LazyFrame]:
    """Lazy scans of the records chunk files ``parts`` (:func:`_chunk_parts`), each kept to its own deals and to
    ``deals=(start, stop)``; only the files that hold some of those deals are opened."""
    frames = []
    for path, chunk, keep_from in parts:
        first, stop = keep_from, chunk.stop
        if deals is not None:
            first, stop = max(first, deals[0]), min(stop, deals[1])
            if first >= stop:
                continue
        frame = pl.scan_parquet(path, glob=False)  # a folder name may hold [ ] (cell ids)
        if first > chunk.start or stop < chunk.stop:
            frame = frame.filter(pl.col("deal").is_between(first, stop, closed="left"))
        frames.append(frame)
    return frames


def scan_records(out_dir: str | Path, deals: tuple[int, int] | None = None) -> pl.LazyFrame:
    """The run's records as a lazy frame (not sorted): summaries of huge runs stream through it.

    ``deals=(start, stop)`` keeps the deals in ``[start, stop)`` and opens only the chunk files that hold some.
    """
    parts = _chunk_parts(out_dir, RECORDS)
    if not parts:
        raise ConfigError(str(Path(out_dir) / RECORDS), "(files)", "chunk files written by glade play",
                          has_got=False)
    frames = _scan_parts(parts, deals)
    if not frames:
        return pl.scan_parquet(parts[0][0], glob=False).head(0)
    return pl.concat(frames, how="vertical")


def deal_ranges(out_dir: str | Path) -> list[tuple[int, int]]:
    """The deals the run's records hold, as sorted disjoint ``[start, stop)`` ranges (every rotation's together)."""
    ranges: list[tuple[int, int]] = []
    for start, stop in sorted((keep_from, chunk.stop) for _, chunk, keep_from in _chunk_parts(out_dir, RECORDS)):
        if ranges and start <= ranges[-1][1]:
            ranges[-1] = (ranges[-1][0], max(ranges[-1][1], stop))
        else:
            ranges.append((start, stop))
    return ranges


def count_games(out_dir: str | Path) -> int:
    """The games the run's records hold (every rotation's), from its chunk files' names and row counts."""
    return sum(chunk.stop - keep_from for _, chunk, keep_from in _chunk_parts(out_dir, RECORDS))


def first_deals(ranges: Sequence[tuple[int, int]], count: int) -> int:
    """The deal number below which ``ranges`` (:func:`deal_ranges`) hold their first ``count`` deals (every deal
    they hold when they hold fewer)."""
    for start, stop in ranges:
        if count <= stop - start:
            return start + count
        count -= stop - start
    return ranges[-1][1] if ranges else 0


def record_blocks(out_dir: str | Path, bounds: Sequence[int], columns: Sequence[str] | None = None,
                  empty: bool = False) -> Iterator[tuple[int, int, pl.DataFrame]]:
    """``(start, stop, records)`` for each pair of neighbouring deal numbers in ``bounds`` (ascending): every game
    of the deals in ``[start, stop)``, only ``columns`` when given. The chunk files are listed once; each block
    opens only the files that hold its deals, so memory holds one block at a time. A block without deals is
    left out, or with ``empty`` given as an empty table (two runs read side by side stay in step)."""
    parts = _chunk_parts(out_dir, RECORDS)
    for start, stop in zip(bounds[:-1], bounds[1:]):
        frames = _scan_parts(parts, (start, stop))
        if not frames and not (empty and parts):
            continue
        frame = pl.concat(frames, how="vertical") if frames else pl.scan_parquet(parts[0][0], glob=False).head(0)
        yield start, stop, (frame if columns is None else frame.select(columns)).collect()


def block_bounds(start: int, stop: int, block_deals: int | None = None, cuts: Sequence[int] = ()) -> list[int]:
    """Deal numbers from ``start`` to ``stop`` every ``block_deals`` (default :data:`BLOCK_DEALS`), and at each of
    ``cuts`` between them: the bounds of :func:`record_blocks` (a block then ends at every cut)."""
    inner = set(range(start, stop, block_deals or BLOCK_DEALS)) | {c for c in cuts if start < c < stop}
    return sorted(inner | {start, stop}) if stop > start else []


def deal_blocks(out_dir: str | Path, deals: int | None = None, block_deals: int | None = None,
                columns: Sequence[str] | None = None, start: int = 0) -> Iterator[pl.DataFrame]:
    """The run's records ``block_deals`` deals at a time (default :data:`BLOCK_DEALS`), each block every game of
    its deals, in deal order:
    only the chunk files that hold a block's deals are opened. ``start`` and ``deals`` keep the deals in
    ``[start, deals)`` (default: every deal)."""
    stop = max((stop for _, stop in deal_ranges(out_dir)), default=0)
    stop = stop if deals is None else min(stop, deals)
    for _, _, block in record_blocks(out_dir, block_bounds(start, stop, block_deals), columns):
        yield block


def scan_side_table(out_dir: str | Path, kind: str, deals: int | None = None) -> pl.LazyFrame | None:
    """The run's events (``kind`` EVENTS) or trajectories as a lazy frame in chunk order, each deal once and only
    the deals below ``deals`` when given (the files of later deals are not opened); None if the run has none."""
    parts = _chunk_parts(out_dir, kind)
    if not parts:
        return None
    rotations = int(load_manifest(out_dir)["rotations"])
    frames = []
    for path, chunk, keep_from in parts:
        stop = chunk.stop if deals is None else min(chunk.stop, deals)
        if keep_from >= stop:
            continue
        frame = pl.scan_parquet(path, glob=False)
        if keep_from > chunk.start:
            frame = frame.filter(pl.col("game") >= keep_from * rotations + chunk.rotation)
        if stop < chunk.stop:
            frame = frame.filter(pl.col("game") < stop * rotations)
        frames.append(frame)
    if not frames:
        return pl.scan_parquet(parts[0][0], glob=False).head(0)
    return pl.concat(frames, how="vertical")


def load_events(out_dir: str | Path, deals: int | None = None) -> pl.DataFrame | None:
    """The run's events table sorted by ``game`` (stable), or None if the game writes none; only the deals below
    ``deals`` when given."""
    return _load_side_table(out_dir, EVENTS, deals)


def load_trajectories(out_dir: str | Path, deals: int | None = None) -> pl.DataFrame | None:
    """The run's trajectories (``game``, ``round``, ``seat``, ``value``) sorted by game, round and seat, or None
    if the run has none (a game without a progress measure, or a run played before trajectories were recorded);
    only the deals below ``deals`` when given."""
    return _load_side_table(out_dir, TRAJECTORIES, deals)


def _load_side_table(out_dir: str | Path, kind: str, deals: int | None = None) -> pl.DataFrame | None:
    frame = scan_side_table(out_dir, kind, deals)
    return None if frame is None else frame.collect().sort("game", maintain_order=True)
