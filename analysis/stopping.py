"""Play until sure enough: extend a run chunk by chunk until every seat's win rate is pinned down.

``glade play ... --until-ci 0.01`` plays the run's first ``--games`` deals,
then adds ``--batch-size x --jobs`` deals at a time, and after each step
computes the Wilson 95% interval of every seat's win rate. It stops as soon
as the largest half-width is at most the target, or when the run holds
``--max-games`` deals. Every step extends the same run directory, so the
result is an ordinary run (and can be resumed or extended like one).

The half-width depends on the results only through p(1 - p), which barely
moves near 50%: unlike stopping at the first significant test, this rule does
not chase noise, and the estimates stay usable as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import polars as pl

from analysis.stats import max_half_width
from sims.core.spec import ConfigError
from sims.runner import MANIFEST, RECORDS, RunSummary, load_manifest, load_records, run

_COLUMNS = ["seat", "win"]


@dataclass
class UntilResult:
    """What :func:`play_until` did."""

    run: RunSummary = field(repr=False)  # the last step's summary
    target: float
    half_width: float  # largest Wilson 95% half-width of the per-seat win rates at the end
    reached: bool  # half_width <= target
    deals: int  # deals in the run directory at the end
    games: int  # games (deals x seat rotations)
    max_games: int | None  # the deal cap
    played: int  # games played by this call
    seconds: float
    steps: list[tuple[int, float]]  # (deals, largest half-width) after each step

    @property
    def games_per_second(self) -> float | None:
        return self.played / self.seconds if self.played and self.seconds > 0 else None


def play_until(
    game_name: str,
    config: Any,
    bot_labels: Sequence[str],
    players: int,
    seed: int,
    games: int,
    out_dir: str | Path,
    target: float,
    max_games: int | None = None,
    batch_size: int = 4096,
    jobs: int = 1,
    rotate_seats: bool = False,
    progress: bool = True,
    backend: str = "loky",
    scheduler: str | None = None,
) -> UntilResult:
    """Play ``games`` deals, then ``batch_size * jobs`` more at a time, until the largest
    per-seat win-rate half-width (Wilson 95%) is at most ``target`` or the run holds
    ``max_games`` deals. A run directory that already holds more deals starts from those.
    """
    if not 0 < target < 1:
        raise ConfigError("--until-ci", str(target), "a half-width between 0 and 1, such as 0.01", has_got=False)
    if max_games is not None and max_games < games:
        raise ConfigError("--max-games", str(max_games), f"at least --games ({games})", has_got=False)
    out = Path(out_dir)
    deals = games
    if (out / MANIFEST).exists():
        deals = max(deals, int(load_manifest(out).get("games", 0)))
    step = batch_size * jobs
    seat_wins: list[pl.DataFrame] = []  # (seat, win) of every game so far: all max_half_width reads
    steps: list[tuple[int, float]] = []
    played, seconds, first = 0, 0.0, True
    while True:
        new_chunks = []
        summary = run(game_name, config, bot_labels, players, seed, deals, out, batch_size=batch_size, jobs=jobs,
                      rotate_seats=rotate_seats, progress=False, on_chunk=lambda chunk, count: new_chunks.append(chunk),
                      backend=backend, scheduler=scheduler)
        played += summary.played
        seconds += summary.seconds
        if first:  # whatever the directory held before, read once
            seat_wins.append(load_records(out).select(_COLUMNS))
            first = False
        else:  # then only the new chunks: no step rereads the whole run
            seat_wins.extend(pl.read_parquet(out / RECORDS / chunk.name, columns=_COLUMNS, glob=False)
                             for chunk in new_chunks)
            seat_wins = [pl.concat(seat_wins, how="vertical")]
        half_width = max_half_width(seat_wins[0])
        steps.append((deals, half_width))
        if progress:
            click.echo(f"until-ci: {deals:,} deals, largest seat half-width {half_width:.4f} "
                       f"(target {target:g})", err=True)
        reached = half_width <= target
        if reached or (max_games is not None and deals >= max_games):
            break
        deals = deals + step if max_games is None else min(deals + step, max_games)
    return UntilResult(
        run=summary, target=target, half_width=half_width, reached=reached, deals=deals, games=summary.games,
        max_games=max_games, played=played, seconds=seconds, steps=steps,
    )


def format_until(result: UntilResult) -> str:
    """One line: how many games it took and the final half-width."""
    shown = f"{result.deals:,} deals" + (f" ({result.games:,} games)" if result.games != result.deals else "")
    if result.reached:
        return (f"until-ci: reached the target after {shown}: largest seat win-rate half-width "
                f"{result.half_width:.4f} <= {result.target:g} (Wilson 95%)")
    return (f"until-ci: stopped at --max-games {result.max_games:,} after {shown} before reaching the target: "
            f"largest seat win-rate half-width {result.half_width:.4f} > {result.target:g} (Wilson 95%)")
