"""Seeded games in chunks, across joblib workers, to Parquet records.

The runner knows no game's rules: it resolves bots, cuts the run into chunks,
plays each chunk with :func:`sims.core.play.play_batch` and writes one row per
game and seat. A run directory looks like::

    OUT/manifest.json                                  what was run, and what is finished
    OUT/records/r{rotation}-{start:09d}-{stop:09d}.parquet   one file per chunk
    OUT/events/r{rotation}-{start:09d}-{stop:09d}.parquet    the same chunk's events, if the game has any

Deals and rotations. A run plays ``games`` *deals* (indices 0..games-1), each
with its own seed ``game_seeds(seed, deal)``. With ``rotate_seats`` every deal
is played once per rotation ``r`` in ``0..players-1``, seat ``s`` taken by bot
``bot_labels[(s + r) % players]``, on the same seed (paired games). The
records' ``game`` id is ``deal * rotations + r``. When every player seat has
the same bot (label, kind and weights), a rotation would replay rotation 0
byte for byte (bots draw from streams keyed by seat, the deal seed is the
same): such a run plays one rotation, and its manifest says so
(``rotate_seats`` true, ``rotations`` 1, ``rotations_collapsed`` the reason).
A directory written before this rule, holding such a lineup in ``players``
rotations, keeps its recorded rotations when resumed.

Resuming. A chunk is finished when its records file exists (files are written
under a temporary name and renamed). Re-running the same command plays only the
deal ranges that no records file covers, whatever the batch size was; a larger
``games`` extends the run. A different game, config, bots, players, seed or
seat rotation on the same directory is refused.
"""

from __future__ import annotations

import contextlib
import os
import json
import platform
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click
import numpy as np
import polars as pl

from sims.core.engine import GameResults
from sims.core.files import exclusive, is_temporary, write_json, write_parquet
from sims.core.play import BotChoice, batched_bots, play_batch, resolve_bot, seat_labels
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.registry import get_game

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

# Manifest keys that must match for a directory to be resumed. ``rotations``
# is not one: it follows from these, except in directories written before
# identical lineups were collapsed, whose recorded rotations are kept.
_IDENTITY = ("game", "players", "config_hash", "bots", "seed", "rotate_seats")

COLLAPSED = "same bot in every seat: rotations would replay identical games"


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


@dataclass
class RunSummary:
    """What a call to :func:`run` did."""

    out_dir: Path
    game: str
    players: int
    deals: int  # the run's --games
    rotations: int
    played: int  # games played by this call (deals x rotations)
    kept: int  # games found finished on disk
    seconds: float
    chunks_played: int
    manifest: dict = field(repr=False)

    @property
    def games(self) -> int:
        """Games in the run directory (one records ``game`` id each)."""
        return self.deals * self.rotations

    @property
    def games_per_second(self) -> float | None:
        return self.played / self.seconds if self.played and self.seconds > 0 else None


# ---------------------------------------------------------------- lineups and chunks


def lineup(choices: Sequence[BotChoice], rotation: int, players: int | None = None) -> tuple[BotChoice, ...]:
    """Seat ``s < players`` plays ``choices[(s + rotation) % players]``; seats beyond the players keep theirs."""
    players = len(choices) if players is None else players
    rotated = tuple(choices[(seat + rotation) % players] for seat in range(players))
    return rotated + tuple(choices[players:])


def seat_rotations(choices: Sequence[BotChoice], players: int, rotate_seats: bool) -> tuple[int, str | None]:
    """How many rotations a deal is played in, and why seat rotation was collapsed (None if it was not).

    Rotation is collapsed to one when every player seat has the same bot:
    the rotated games would be the same games again.
    """
    if not rotate_seats:
        return 1, None
    if players > 1 and all(choice == choices[0] for choice in choices[1:players]):
        return 1, COLLAPSED
    return players, None


def run_rotations(out_dir: str | Path, game_name: str, config: Any, bot_labels: Sequence[str], players: int,
                  rotate_seats: bool) -> int:
    """The rotations :func:`run` plays in ``out_dir``: those its manifest records, else those the lineup calls for."""
    held = recorded_rotations(out_dir)
    if held is not None:
        return held
    game = get_game(game_name)
    choices = [resolve_bot(game, config, label) for label in seat_labels(game, players, bot_labels)]
    return seat_rotations(choices, players, rotate_seats)[0]


def recorded_rotations(out_dir: str | Path) -> int | None:
    """The rotations the manifest in ``out_dir`` records, or None if there is no readable manifest."""
    try:
        return int(json.loads((Path(out_dir) / MANIFEST).read_text())["rotations"])
    except (OSError, ValueError, KeyError):
        return None


def _lineup_labels(choices: Sequence[BotChoice], players: int, rotations: int) -> list[list[str]]:
    return [[c.label for c in lineup(choices, r, players)] for r in range(rotations)]


def plan_chunks(games: int, rotations: int, batch_size: int, finished: Sequence[Chunk] = ()) -> list[Chunk]:
    """The chunks still to play: deal ranges no finished chunk covers, cut to ``batch_size``.

    Ordered by deal range, then rotation, so that a stopped run holds whole
    groups of paired games.
    """
    todo = []
    for rotation in range(rotations):
        covered = sorted((c.start, c.stop) for c in finished if c.rotation == rotation)
        gaps, cursor = [], 0
        for start, stop in covered:
            if start > cursor:
                gaps.append((cursor, min(start, games)))
            cursor = max(cursor, stop)
        if cursor < games:
            gaps.append((cursor, games))
        for low, high in gaps:
            for start in range(low, high, batch_size):
                todo.append(Chunk(rotation, start, min(start + batch_size, high)))
    return sorted(todo, key=lambda c: (c.start, c.rotation))


def finished_chunks(out_dir: Path) -> list[Chunk]:
    """Chunks whose records file is on disk."""
    folder = Path(out_dir) / RECORDS
    if not folder.is_dir():
        return []
    return sorted(c for c in (Chunk.parse(p.name) for p in folder.iterdir()) if c is not None)


# ---------------------------------------------------------------- one chunk


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


def play_chunk(
    game_name: str,
    config: Any,
    players: int,
    choices: tuple[BotChoice, ...],
    seed: int,
    rotation: int,
    rotations: int,
    start: int,
    stop: int,
) -> tuple[Chunk, pl.DataFrame, pl.DataFrame | None]:
    """Play deals ``[start, stop)`` of one rotation: the chunk, its records and its events (or None).

    The task a worker runs (joblib, or a Dask cluster): it gets only plain
    arguments (``rotations`` numbers the records' ``game`` ids), builds the
    engine and bots itself and returns finished tables; only the main process
    writes files. Unpickling ``config`` imports the module that defines the
    game's config, which is how a worker finds games registered outside ``sims/``.
    """
    game = get_game(game_name)
    engine = game.batched(config, players)
    bots = batched_bots(game, engine, choices)
    deals = np.arange(start, stop, dtype=np.int64)
    seeds = game_seeds(seed, deals)
    state, trace = play_batch(engine, bots, seeds, game.max_turns(config))
    results = engine.results(state)
    records = records_frame(engine.end_reasons, results, choices, seeds, deals, rotation, rotations)
    events = engine.events(state, trace)
    table = None
    if events is not None:
        table = pl.DataFrame({k: np.asarray(v) for k, v in events.items()})
        local = table["game"].to_numpy().astype(np.int64)
        table = table.with_columns(pl.Series("game", (deals[local] * rotations + rotation), dtype=pl.Int64))
        table = table.sort("game", maintain_order=True)
    return Chunk(rotation, start, stop), records, table


def write_chunk(out_dir: Path, chunk: Chunk, records: pl.DataFrame, events: pl.DataFrame | None) -> None:
    """Events first, then records: a records file on disk marks a finished chunk."""
    if events is not None:
        write_parquet(events, Path(out_dir) / EVENTS / chunk.name)
    write_parquet(records, Path(out_dir) / RECORDS / chunk.name)


# ---------------------------------------------------------------- manifest


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        glade = version("glade")
    except PackageNotFoundError:
        glade = "unknown"
    return {"glade": glade, "python": platform.python_version(), "numpy": np.__version__, "polars": pl.__version__}


def machine(backend: str, jobs: int, scheduler: str | None) -> str:
    """Where the latest games of a run were played, for its report."""
    where = f"Dask scheduler {scheduler}" if scheduler else f"{backend} with {jobs} worker{'s' if jobs > 1 else ''}"
    return f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; {where}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _check_resume(held: dict, wanted: dict, path: Path) -> None:
    """Refuse a directory that holds a different run."""
    advice = "use another --out for a different run"
    for key in _IDENTITY:
        if held.get(key) != wanted[key]:
            raise ConfigError(str(path), key, f"{_plain(held.get(key))} (what this run directory holds; {advice}), "
                              f"got {_plain(wanted[key])}", has_got=False)
    if wanted["games"] < held.get("games", 0):
        raise ConfigError(str(path), "games", f"at least {held['games']} (what this run directory holds; {advice}), "
                          f"got {wanted['games']}", has_got=False)


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return json.dumps(value).strip('"')


def _config_values(config: Any) -> tuple[dict, str, str, list[str]]:
    loaded = config.loaded
    return loaded.values, loaded.hash, loaded.source, list(loaded.overrides)


# ---------------------------------------------------------------- run


def run(
    game_name: str,
    config: Any,
    bot_labels: Sequence[str],
    players: int,
    seed: int,
    games: int,
    out_dir: str | Path,
    batch_size: int = 4096,
    jobs: int = 1,
    rotate_seats: bool = False,
    progress: bool = True,
    on_chunk: Callable[[Chunk, int], None] | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
) -> RunSummary:
    """Play ``games`` deals of ``game_name`` into ``out_dir`` (resuming what is there).

    ``on_chunk(chunk, games)`` is called after each chunk is written (a sweep
    uses it for one progress bar over many runs).

    ``backend`` is ``"loky"`` (``jobs`` local processes) or ``"dask"``: joblib's
    Dask backend on the cluster at ``scheduler`` (an address such as
    ``tcp://10.0.0.5:8786``) or, without one, a ``LocalCluster`` of ``jobs``
    single-threaded workers on this machine. Records are the same either way.
    """
    game = get_game(game_name)
    bot_labels = seat_labels(game, players, bot_labels)
    for option, value in (("--games", games), ("--batch-size", batch_size), ("--jobs", jobs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(option, str(value), "an integer of at least 1", has_got=False)
    choices = [resolve_bot(game, config, label) for label in bot_labels]
    rotations, collapsed = seat_rotations(choices, players, rotate_seats)
    out = Path(out_dir)
    manifest_path = out / MANIFEST
    values, digest, source, overrides = _config_values(config)

    manifest = {
        "game": game.name,
        "config_hash": digest,
        "bots": bot_labels,
        "players": players,
        "seed": int(seed),
        "rotate_seats": bool(rotate_seats),
        "games": games,
        "rotations": rotations,
        **({"rotations_collapsed": collapsed} if collapsed else {}),
        "batch_size": batch_size,
        "config_source": source,
        "config_overrides": overrides,
        "config": values,
        "bot_kinds": [{"label": c.label, "kind": c.kind, "weights": dict(c.weights)} for c in choices],
        "lineups": _lineup_labels(choices, players, rotations),
        "chunks": [],
        "versions": versions(),
        "created": _now(),
        "updated": _now(),
    }
    out.mkdir(parents=True, exist_ok=True)
    with exclusive(out, "run directory"):
        finished = _resume(out, manifest, choices)
        rotations = manifest["rotations"]
        _tidy(out, finished)
        write_json(manifest, manifest_path)
        todo = plan_chunks(games, rotations, batch_size, finished)
        tasks = [
            (game.name, config, players, lineup(choices, c.rotation, players), int(seed), c.rotation, rotations, c.start, c.stop)
            for c in todo
        ]
        started = time.perf_counter()
        played = 0
        with _progress_bar(progress and bool(todo), sum(c.deals for c in todo), f"{game.name} ({out})") as bar:
            for chunk, records, events in _execute(tasks, jobs, backend, scheduler):
                write_chunk(out, chunk, records, events)
                finished.append(chunk)
                count = chunk.deals
                played += count
                manifest["chunks"] = sorted(c.name for c in finished)
                manifest["updated"] = _now()
                write_json(manifest, manifest_path)
                bar.update(count)
                if on_chunk is not None:
                    on_chunk(chunk, count)
        seconds = time.perf_counter() - started
        if played:
            manifest["games_per_second"] = played / seconds
            manifest["machine"] = machine(backend, jobs, scheduler)
            write_json(manifest, manifest_path)
    return RunSummary(
        out_dir=out, game=game.name, players=players, deals=games, rotations=rotations,
        played=played, kept=games * rotations - sum(c.deals for c in todo),
        seconds=seconds, chunks_played=len(todo), manifest=manifest,
    )


def _resume(out: Path, manifest: dict, choices: Sequence[BotChoice]) -> list[Chunk]:
    """The finished chunks of the run in ``out``; refuses a directory holding another run.

    Updates ``manifest`` (creation time, finished chunks, and the rotations
    the directory was played with) in place.
    """
    path = out / MANIFEST
    if not path.exists():
        if finished_chunks(out):
            raise ConfigError(str(path), "(file)", f"a manifest beside the chunk files in {out} "
                              "(it was deleted; use another --out)", has_got=False)
        return []
    try:
        held = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ConfigError(str(path), "(syntax)", f"a manifest written by glade ({error})", has_got=False) from None
    _check_resume(held, manifest, path)
    manifest["created"] = held.get("created", manifest["created"])
    _keep_rotations(held, manifest, choices)
    if "stopping" in held:  # how an earlier glade play --until-ci chose the run's size
        manifest["stopping"] = held["stopping"]
    finished = [c for c in finished_chunks(out) if c.rotation < manifest["rotations"]]
    manifest["chunks"] = [c.name for c in finished]
    return finished


def _keep_rotations(held: dict, manifest: dict, choices: Sequence[BotChoice]) -> None:
    """Resume with the rotations the directory holds (an identical lineup played before collapsing kept them all)."""
    rotations = int(held.get("rotations", manifest["rotations"]))
    if rotations == manifest["rotations"]:
        return
    manifest["rotations"] = rotations
    manifest.pop("rotations_collapsed", None)
    manifest["lineups"] = _lineup_labels(choices, manifest["players"], rotations)


BACKENDS = ("loky", "dask")


def _execute(tasks: list[tuple], jobs: int, backend: str = "loky",
             scheduler: str | None = None) -> Iterator[tuple[Chunk, pl.DataFrame, pl.DataFrame | None]]:
    """Run the chunk tasks, yielding each finished chunk as it arrives."""
    if backend not in BACKENDS:
        raise ConfigError("--backend", backend, "one of " + ", ".join(BACKENDS), has_got=False)
    if backend == "dask":
        yield from _execute_dask(tasks, jobs, scheduler)
        return
    if jobs == 1 or len(tasks) <= 1:
        for task in tasks:
            yield play_chunk(*task)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")
    yield from parallel(delayed(play_chunk)(*task) for task in tasks)


def _execute_dask(tasks: list[tuple], jobs: int, scheduler: str | None) -> Iterator[tuple]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("--backend", "dask", "the dask.distributed package (pip install 'dask[distributed]')",
                          has_got=False) from None
    from joblib import Parallel, delayed, parallel_config

    if scheduler:
        try:
            client = Client(scheduler, timeout="5s")
        except (OSError, TimeoutError) as error:
            raise ConfigError("--scheduler", scheduler, f"the address of a running Dask scheduler ({error})",
                              has_got=False) from None
        cluster = None
    else:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        with parallel_config(backend="dask"):
            parallel = Parallel(n_jobs=-1, return_as="generator_unordered")
            yield from parallel(delayed(play_chunk)(*task) for task in tasks)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _tidy(out: Path, finished: Sequence[Chunk]) -> None:
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


class _NoBar:
    def update(self, count: int) -> None:
        pass


@contextlib.contextmanager
def _progress_bar(show: bool, length: int, label: str) -> Iterator[Any]:
    if not show:
        yield _NoBar()
        return
    with click.progressbar(length=length, label=label, file=sys.stderr, show_pos=True) as bar:
        yield bar


# ---------------------------------------------------------------- reading runs


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
