"""Seeded games in chunks, across joblib workers, to Parquet records.

The runner knows no game's rules: it resolves bots, cuts the run into chunks,
plays each chunk with :func:`sims.core.play.play_batch` and writes one row per
game and seat through :mod:`sims.records` (the run directory's layout: records
and events chunk files, ``manifest.json``). It prints nothing itself: a caller
may pass a progress display (the command line passes a click progress bar).

Deals and rotations. A run of a :class:`~sims.runspec.RunSpec` plays ``games``
*deals* (indices 0..games-1), each with its own seed ``game_seeds(seed, deal)``.
With ``rotate_seats`` every deal is played once per rotation ``r`` in
``0..players-1``, seat ``s`` taken by bot ``bots[(s + r) % players]``, on the same seed (paired games). The
records' ``game`` id is ``deal * rotations + r``. When every player seat has
the same bot (label, kind and weights), a rotation would replay rotation 0
byte for byte (bots draw from streams keyed by seat, the deal seed is the
same): such a run plays one rotation, and its manifest says so
(``rotate_seats`` true, ``rotations`` 1, ``rotations_collapsed`` the reason).
A directory written before this rule, holding such a lineup in ``players``
rotations, keeps its recorded rotations when resumed.

Resuming. A chunk is finished when its records file exists (files are written
under a temporary name and renamed) and is whole: resuming reads every chunk
file's Parquet footer and checks the records' row count against the chunk's
deal range; a damaged file (a disk fault, a cut copy) is moved to
``damaged/`` with a one-line warning and its deals are played again.
Re-running the same command plays only the deal ranges that no records file
covers, whatever the batch size was; a larger ``games`` extends the run. A
different game, config, bots, players, seed, seat rotation or bot streams on
the same directory is refused: a resume reads the :class:`~sims.runspec.RunSpec`
the manifest records and names the first field that differs. A run holds at
most :data:`MAX_DEALS` deals (chunk file names write deal numbers in 9
digits); chunks are planned lazily, one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sims.core import compiling
from sims.core.columns import dictionary
from sims import outdir
from sims.core.engine import GameConfig
from sims.core.play import BotChoice, batched_bots, play_batch
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.records import (BASE_COLUMNS, EVENTS, MANIFEST, MAX_DEALS, RECORDS, TRAJECTORIES, Chunk,  # noqa: F401
                          chunk_files, file_digest, finished_chunks, load_events, load_manifest, load_records, machine, now, read_manifest,
                          load_trajectories, recorded_rotations, records_frame, scan_records, set_aside_damaged,
                          set_manifest_key, tidy, trajectories_frame, versions, write_chunk, write_manifest)
from sims.registry import get_game
from sims.runspec import RunSpec, check_seed

# The run directory's layout lives in sims.records; these names stay importable from here.
__all__ = ["BASE_COLUMNS", "COLLAPSED", "Chunk", "EVENTS", "MANIFEST", "Progress", "RECORDS", "RunSummary",
           "MAX_DEALS", "RunSpec", "TRAJECTORIES", "check_run_dir", "check_scheduler", "check_seed", "finished_chunks",
           "iter_chunks", "lineup", "load_events", "load_manifest",
           "load_records", "load_trajectories",
           "machine", "missing_deals", "plan_chunks",
           "play_chunk", "recorded_rotations", "records_frame", "run", "run_rotations", "scan_records",
           "local_workers", "run_manifest", "seat_rotations", "set_manifest_key", "versions", "write_chunk"]

# A progress display: ``progress(length, label)`` opens a context manager whose value has ``update(count)``.
Progress = Callable[[int, str], contextlib.AbstractContextManager]

COLLAPSED = "same bot in every seat: rotations would replay identical games"


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


def run_rotations(out_dir: str | Path, spec: RunSpec) -> int:
    """The rotations :func:`run` plays in ``out_dir``: those its manifest records, else those the lineup calls for."""
    held = recorded_rotations(out_dir)
    if held is not None:
        return held
    return seat_rotations(spec.choices, spec.players, spec.rotate_seats)[0]


def _lineup_labels(choices: Sequence[BotChoice], players: int, rotations: int) -> list[list[str]]:
    return [[c.label for c in lineup(choices, r, players)] for r in range(rotations)]


def _gaps(games: int, rotation: int, finished: Sequence[Chunk]) -> list[tuple[int, int]]:
    """Deal ranges of one rotation below ``games`` that no finished chunk covers."""
    covered = sorted((c.start, c.stop) for c in finished if c.rotation == rotation)
    gaps, cursor = [], 0
    for start, stop in covered:
        if start > cursor:
            gaps.append((cursor, min(start, games)))
        cursor = max(cursor, stop)
    if cursor < games:
        gaps.append((cursor, games))
    return [(low, high) for low, high in gaps if low < high]


def iter_chunks(games: int, rotations: int, batch_size: int, finished: Sequence[Chunk] = ()) -> Iterator[Chunk]:
    """The chunks still to play, one at a time: deal ranges no finished chunk covers, cut to ``batch_size``.

    Ordered by deal range, then rotation, so that a stopped run holds whole
    groups of paired games. Lazy: a run of a billion deals never holds a list
    of its chunks.
    """
    def cut(rotation: int) -> Iterator[tuple[int, int, Chunk]]:
        for low, high in _gaps(games, rotation, finished):
            for start in range(low, high, batch_size):
                yield start, rotation, Chunk(rotation, start, min(start + batch_size, high))

    for _, _, chunk in heapq.merge(*(cut(rotation) for rotation in range(rotations))):
        yield chunk


def plan_chunks(games: int, rotations: int, batch_size: int, finished: Sequence[Chunk] = ()) -> list[Chunk]:
    """:func:`iter_chunks` as a list (for small runs and tests)."""
    return list(iter_chunks(games, rotations, batch_size, finished))


def missing_deals(games: int, rotations: int, finished: Sequence[Chunk] = ()) -> int:
    """Deals (summed over rotations) that no finished chunk covers."""
    return sum(high - low for rotation in range(rotations) for low, high in _gaps(games, rotation, finished))


def check_run_options(out: Path, backend: str, scheduler: str | None) -> None:
    """ConfigErrors for an --out glade play may not write to, an unknown backend, a scheduler without dask."""
    outdir.check_out(out, "play")
    if backend not in BACKENDS:
        raise ConfigError("--backend", backend, "one of " + ", ".join(BACKENDS), has_got=False)
    if scheduler is not None and backend != "dask":
        raise ConfigError("--scheduler", scheduler, "--backend dask beside it (a scheduler is a Dask cluster's)",
                          has_got=False)


def check_deals(option: str, games: int) -> None:
    """A ConfigError unless ``games`` is a deal count a run can hold (1 to :data:`MAX_DEALS`)."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_DEALS:
        raise ConfigError(option, str(games), f"an integer from 1 to {MAX_DEALS:,} (the most deals a run holds: "
                          "chunk file names write deal numbers in 9 digits)", has_got=False)


# ---------------------------------------------------------------- one chunk


def play_chunk(
    game_name: str,
    config: GameConfig,
    players: int,
    choices: tuple[BotChoice, ...],
    seed: int,
    rotation: int,
    rotations: int,
    start: int,
    stop: int,
    trajectories: bool = False,
    bot_streams: str = "",
) -> tuple[Chunk, pl.DataFrame, pl.DataFrame | None, pl.DataFrame | None]:
    """Play deals ``[start, stop)`` of one rotation: the chunk, its records, its events and its trajectories (each
    None if the game has none; trajectories only when asked for).

    The task a worker runs (joblib, or a Dask cluster): it gets only plain
    arguments (``rotations`` numbers the records' ``game`` ids), builds the
    engine and bots itself and returns finished tables; only the main process
    writes files. Unpickling ``config`` imports the module that defines the
    game's config, which is how a worker finds games registered outside ``sims/``.
    """
    compiling.listen()  # a worker that compiles says so
    game = get_game(game_name)
    engine = game.batched(config, players)
    bots = batched_bots(game, engine, choices, bot_streams)
    deals = np.arange(start, stop, dtype=np.int64)
    seeds = game_seeds(seed, deals)
    state, trace = play_batch(engine, bots, seeds, game.max_turns(config), trajectories=trajectories)
    results = engine.results(state)
    records = records_frame(engine.end_reasons, results, choices, seeds, deals, rotation, rotations)
    events = engine.events(state, trace)
    table = None
    if events is not None:
        table = pl.DataFrame({k: np.asarray(v) for k, v in events.items()})
        local = table["game"].to_numpy().astype(np.int64)
        table = table.with_columns(pl.Series("game", (deals[local] * rotations + rotation), dtype=pl.Int64))
        table = table.sort("game", maintain_order=True)
    return Chunk(rotation, start, stop), records, table, trajectories_frame(trace.progress, deals, rotation, rotations)


# ---------------------------------------------------------------- manifest


def _check_resume(held: dict, spec: RunSpec, games: int | None, path: Path) -> None:
    """Refuse a directory that holds a different run: the first field on which its manifest's spec differs from
    ``spec``, or fewer ``games`` than it holds (None: any number)."""
    advice = "use another --out for a different run"
    difference = RunSpec.from_manifest(held, path).difference(spec)
    if difference is not None:
        key, holds, wanted = difference
        raise ConfigError(str(path), key, f"{_plain(holds)} (what this run directory holds; {advice}), "
                          f"got {_plain(wanted)}", has_got=False)
    if games is not None and games < held.get("games", 0):
        raise ConfigError(str(path), "games", f"at least {held['games']} (what this run directory holds; {advice}), "
                          f"got {games}", has_got=False)


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return json.dumps(value).strip('"')


# ---------------------------------------------------------------- run


def run_manifest(spec: RunSpec, games: int, out: Path, *, batch_size: int = 4096, backend: str = "loky",
                 scheduler: str | None = None) -> dict:
    """The manifest :func:`run` would write to ``out``, every argument checked (a ConfigError otherwise)."""
    check_deals("--games", games)
    check_run_options(out, backend, scheduler)
    rotations, collapsed = seat_rotations(spec.choices, spec.players, spec.rotate_seats)
    fields = spec.manifest_fields()
    config = {key: fields.pop(key) for key in ("config_source", "config_overrides", "config")}
    return {
        **fields,
        "games": games,
        "rotations": rotations,
        **({"rotations_collapsed": collapsed} if collapsed else {}),
        "batch_size": batch_size,
        **config,
        "bot_kinds": [{"label": c.label, "kind": c.kind, "weights": dict(c.weights)} for c in spec.choices],
        "lineups": _lineup_labels(spec.choices, spec.players, rotations),
        "chunks": [],
        "digests": {},
        "versions": versions(),
        "created": now(),
        "updated": now(),
    }


def check_run_dir(out: Path, spec: RunSpec, games: int | None = None) -> dict | None:
    """What ``out`` holds if :func:`run` may resume it with ``spec`` (None: nothing yet); a ConfigError if it holds
    another run (or more deals than ``games``, when given), a damaged manifest, or chunk files without one.
    Read-only: what sweeps, tunes and ladders check of each run directory before they write anything."""
    outdir.check_out(out, "play")
    path = out / MANIFEST
    held = read_manifest(out)
    if held is None:
        if finished_chunks(out):
            raise ConfigError(str(path), "(file)", f"a manifest beside the chunk files in {out} "
                              "(it was deleted; use another --out)", has_got=False)
        return None
    _check_resume(held, spec, games, path)
    return held


def run(
    spec: RunSpec,
    games: int,
    out_dir: str | Path,
    *,
    batch_size: int = 4096,
    jobs: int = 1,
    progress: Progress | None = None,
    on_chunk: Callable[[Chunk, int], None] | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> RunSummary:
    """Play ``games`` deals of the run ``spec`` defines into ``out_dir`` (resuming what is there).

    The other arguments change how fast the records come, never what they hold.
    ``progress(length, label)``, if given, opens the progress display: a
    context manager whose value has ``update(games)`` (the command line passes
    a click progress bar; the runner itself prints nothing). ``on_chunk(chunk,
    games)`` is called after each chunk is written (a sweep uses it for one
    progress bar over many runs).

    ``backend`` is ``"loky"`` (``jobs`` local processes) or ``"dask"``: joblib's
    Dask backend on the cluster at ``scheduler`` (an address such as
    ``tcp://10.0.0.5:8786``) or, without one, a ``LocalCluster`` of ``jobs``
    single-threaded workers on this machine. Records are the same either way.

    ``warn(line)`` is told each damaged chunk file set aside on resuming
    (default: printed on stderr).

    ``spec.trajectories``: also write each seat's score at each round end (``trajectories/``, the engine's
    ``progress``); opt-in, it costs about 5-8% of play time. A directory played with it keeps it on resuming.

    ``spec.bot_streams`` (empty: the usual streams): every bot draws its random numbers from
    ``<bot_streams>/bot/<seat>`` instead of ``bot/<seat>``, so the same deals are played with other tie-breaks
    (``glade ablate``'s placebo run); the manifest records it and a resume must give the same.
    """
    out = Path(out_dir)
    manifest = run_manifest(spec, games, out, batch_size=batch_size, backend=backend, scheduler=scheduler)
    for option, value in (("--batch-size", batch_size), ("--jobs", jobs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(option, str(value), "an integer of at least 1", has_got=False)
    choices, players = spec.choices, spec.players
    columns = dictionary(spec.game, spec.config)
    with _client(backend, scheduler) as client, \
            outdir.writing(out, "play", lambda: check_run_dir(out, spec, games)) as held:
        finished = _resume(out, manifest, held, choices, warn or _stderr)
        rotations = manifest["rotations"]
        tidy(out, finished)
        write_manifest(manifest, out)
        missing = missing_deals(games, rotations, finished)
        todo = iter_chunks(games, rotations, batch_size, list(finished))
        tasks = ((spec.game, spec.config, players, lineup(choices, c.rotation, players), spec.seed, c.rotation,
                  rotations, c.start, c.stop, manifest["trajectories"], spec.bot_streams) for c in todo)
        if missing and scheduler is None:  # compiled here, before the workers and the ETA start (sims.core.compiling)
            compiling.warm_lineups(spec.game, [(spec.config, players, list(choices))])
        started = time.perf_counter()
        played = chunks_played = 0
        with _progress_bar(progress if missing else None, missing, f"{spec.game} ({out})") as bar, \
                contextlib.closing(_execute(tasks, jobs, backend, scheduler, several=missing > batch_size,
                                            client=client)) as chunks:
            for chunk, records, events, trajectories in chunks:
                write_chunk(out, chunk, records, events, columns, trajectories)
                _record_digests(manifest, out, chunk)
                finished.append(chunk)
                count = chunk.deals
                played += count
                chunks_played += 1
                manifest["chunks"] = sorted(c.name for c in finished)
                manifest["updated"] = now()
                write_manifest(manifest, out)
                bar.update(count)
                if on_chunk is not None:
                    on_chunk(chunk, count)
        seconds = time.perf_counter() - started
        if played:
            manifest["games_per_second"] = played / seconds
            manifest["machine"] = machine(backend, jobs, scheduler)
            write_manifest(manifest, out)
    return RunSummary(
        out_dir=out, game=spec.game, players=players, deals=games, rotations=rotations,
        played=played, kept=games * rotations - missing,
        seconds=seconds, chunks_played=chunks_played, manifest=manifest,
    )


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def _resume(out: Path, manifest: dict, held: dict | None, choices: Sequence[BotChoice],
            warn: Callable[[str], None]) -> list[Chunk]:
    """The finished chunks of the run in ``out`` (``held``: its manifest, checked by :func:`check_run_dir`).

    Damaged chunk files are set aside (``warn`` names each). Updates
    ``manifest`` (creation time, finished chunks, and the rotations the
    directory was played with) in place.
    """
    if held is None:
        return []
    manifest["created"] = held.get("created", manifest["created"])
    _keep_rotations(held, manifest, choices)
    manifest["trajectories"] = manifest["trajectories"] or bool(held.get("trajectories"))
    if "stopping" in held:  # how an earlier glade play --until-ci chose the run's size
        manifest["stopping"] = held["stopping"]
    digests = held.get("digests", {})
    set_aside_damaged(out, len(manifest["bots"]), warn, digests)
    finished = [c for c in finished_chunks(out) if c.rotation < manifest["rotations"]]
    manifest["chunks"] = [c.name for c in finished]
    manifest["digests"] = {key: digests[key] for c in finished for key in chunk_files(out, c) if key in digests}
    for chunk in finished:  # written before digests were recorded, or just before a kill
        _record_digests(manifest, out, chunk)
    return finished


def _record_digests(manifest: dict, out: Path, chunk: Chunk) -> None:
    """Record the sha256 of the chunk's files not yet in ``manifest["digests"]`` (resume compares them)."""
    for key in chunk_files(out, chunk):
        if key not in manifest["digests"]:
            manifest["digests"][key] = file_digest(out / key)


def _keep_rotations(held: dict, manifest: dict, choices: Sequence[BotChoice]) -> None:
    """Resume with the rotations the directory holds (an identical lineup played before collapsing kept them all)."""
    rotations = int(held.get("rotations", manifest["rotations"]))
    if rotations == manifest["rotations"]:
        return
    manifest["rotations"] = rotations
    manifest.pop("rotations_collapsed", None)
    manifest["lineups"] = _lineup_labels(choices, manifest["players"], rotations)


BACKENDS = ("loky", "dask")


def _execute(tasks: Iterable[tuple], jobs: int, backend: str = "loky", scheduler: str | None = None,
             several: bool = True, client: Any = None) -> Iterator[tuple[Chunk, pl.DataFrame, pl.DataFrame | None]]:
    """Run the chunk tasks (an iterable, consumed as workers free up), yielding each finished chunk as it arrives.

    ``several`` false (one chunk or none) plays in this process whatever ``jobs`` is. ``client``: the Dask
    client :func:`_client` connected (None: a LocalCluster of ``jobs`` workers is started here).
    """
    if backend not in BACKENDS:
        raise ConfigError("--backend", backend, "one of " + ", ".join(BACKENDS), has_got=False)
    if backend == "dask":
        yield from _execute_dask(tasks, jobs, client)
        return
    if jobs == 1 or not several:
        for task in tasks:
            yield play_chunk(*task)
        return
    from joblib import delayed

    with local_workers(jobs, return_as="generator_unordered") as parallel:
        yield from _quietly_closed(parallel(delayed(play_chunk)(*task) for task in tasks))


# More local worker processes than this many per CPU would only queue (and thousands would exhaust the machine).
WORKERS_PER_CPU = 4


@contextlib.contextmanager
def local_workers(jobs: int, **options: Any) -> Iterator[Any]:
    """A joblib ``Parallel`` of ``jobs`` loky worker processes (at most :data:`WORKERS_PER_CPU` per CPU).

    Workers ignore SIGINT: Ctrl-C reaches the whole process group, and only the main process should answer it
    (with one line); it then stops the workers itself."""
    from joblib import Parallel, parallel_config

    with parallel_config(backend="loky", initializer=_ignore_interrupts):
        yield Parallel(n_jobs=max(1, min(jobs, WORKERS_PER_CPU * (os.cpu_count() or 1))), **options)


def _quietly_closed(results: Iterator[tuple]) -> Iterator[tuple]:
    """The results of a joblib generator; stopped early (Ctrl-C, an error), it cancels the rest without
    joblib's warning about unused tasks: the finished chunks on disk are what a resume keeps."""
    try:
        for result in results:
            yield result
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            results.close()


def _ignore_interrupts() -> None:
    """A worker's first act: leave Ctrl-C to the main process."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _client(backend: str, scheduler: str | None) -> Iterator[Any]:
    """The Dask client of ``--scheduler``, connected before anything is written (an address that is no running
    scheduler is a ConfigError); None for the loky backend or a local cluster (started when chunks are played)."""
    if backend != "dask" or not scheduler:
        yield None
        return
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError("--backend", "dask", "the dask.distributed package (pip install 'dask[distributed]')",
                          has_got=False) from None
    try:
        asyncio.run(_reach(scheduler))
    except (OSError, TimeoutError, ValueError, TypeError) as error:  # ValueError: not an address at all
        raise ConfigError("--scheduler", scheduler, f"the address of a running Dask scheduler ({error})",
                          has_got=False) from None
    client = Client(scheduler, timeout="5s")
    try:
        yield client
    finally:
        client.close()


async def _reach(scheduler: str) -> None:
    """Connect to the scheduler once and hang up (a Client that fails to connect stays behind, and closing it
    later can hang the process); an OSError or ValueError when it cannot be reached."""
    from distributed.comm import connect

    comm = await connect(scheduler, timeout="5s")
    await comm.close()


def check_scheduler(backend: str, scheduler: str | None) -> None:
    """A ConfigError unless ``--scheduler`` (with the dask backend) is the address of a running scheduler."""
    with _client(backend, scheduler):
        pass


def _execute_dask(tasks: Iterable[tuple], jobs: int, client: Any = None) -> Iterator[tuple]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("--backend", "dask", "the dask.distributed package (pip install 'dask[distributed]')",
                          has_got=False) from None
    from joblib import Parallel, delayed, parallel_config

    cluster = None
    if client is None:
        # no dashboard; the scheduler's own HTTP server (health routes) on a free port, not on 8787, which a
        # second cluster on the machine would find taken (a warning, and an error where warnings are errors)
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                               scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"})
        client = Client(cluster)
    try:
        with parallel_config(backend="dask", client=client):
            parallel = Parallel(n_jobs=-1, return_as="generator_unordered")
            yield from _quietly_closed(parallel(delayed(play_chunk)(*task) for task in tasks))
    finally:
        if cluster is not None:
            client.close()
            cluster.close()


class _NoBar:
    def update(self, count: int) -> None:
        pass


@contextlib.contextmanager
def _progress_bar(progress: Progress | None, length: int, label: str) -> Iterator[Any]:
    if not progress:
        yield _NoBar()
        return
    with progress(length, label) as bar:
        yield bar
