"""Games and decisions per second of both engines: ``glade bench``.

For each bot kind (random, greedy, planner) every seat plays that kind. The
batched engine plays one batch of deals in one :func:`play_batch` call
(``batch_size`` deals; the slow planner ``planner_batch_size``); the
reference engine plays the first ``reference_games`` of the same deals one at
a time with the reference bots (the planner has none). Before the timed runs
each kind plays a few deals once: that first call imports, allocates and
compiles the numba kernels (cached on disk afterwards), and its time is
reported apart as ``compile_seconds``. Each figure is the median of the timed
runs, in this one process; the ratios come from the same run, so they stay
meaningful on a noisy, shared machine where absolute figures drift.

Without an explicit ``repeats`` a kind is timed up to :data:`MAX_REPEATS`
times but stops after :data:`TIME_BUDGET` seconds, so slow kinds get fewer
runs and ``glade bench --all`` stays short.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sims.core.play import batched_bots, check_players, play_batch, play_reference, reference_bots, resolve_bot
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.registry import get_game

BOT_KINDS = ("random", "greedy", "planner")
BATCH_SIZE = 1024
PLANNER_BATCH_SIZE = 64
REFERENCE_GAMES = 2
MAX_REPEATS = 5
TIME_BUDGET = 1.5  # seconds of timed runs a figure gets when repeats are not given
WARM_UP_GAMES = 4


def versions() -> dict[str, str | None]:
    """numpy, python and numba versions (numba None if it is not installed)."""
    try:
        import numba
        numba_version: str | None = numba.__version__
    except ImportError:
        numba_version = None
    return {"numpy": np.__version__, "python": platform.python_version(), "numba": numba_version}


def _seconds(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def median_seconds(work: Callable[[], Any], repeats: int | None) -> tuple[float, int]:
    """Median time of runs of ``work`` and how many ran: exactly ``repeats``, or, if None, up to
    :data:`MAX_REPEATS` until :data:`TIME_BUDGET` seconds are spent."""
    times: list[float] = []
    while len(times) < (repeats or MAX_REPEATS):
        times.append(_seconds(work))
        if repeats is None and sum(times) >= TIME_BUDGET:
            break
    return statistics.median(times), len(times)


def _check_sizes(**sizes: int | None) -> None:
    for option, value in sizes.items():
        if value is not None and value < 1:
            raise ConfigError("--" + option.replace("_", "-"), str(value), "an integer of at least 1",
                              has_got=False)


def bench(
    game_name: str,
    config: Any,
    players: int,
    batch_size: int = BATCH_SIZE,
    repeats: int | None = None,
    reference_games: int = REFERENCE_GAMES,
    seed: int = 0,
    kinds: Sequence[str] = BOT_KINDS,
    planner_batch_size: int = PLANNER_BATCH_SIZE,
) -> dict[str, Any]:
    """Median games/s and decisions/s of the batched and the reference engine, and their ratio, per bot kind.

    Keys for each kind the game has: ``batched_<kind>_gps``, ``<kind>_decisions_per_s`` (decisions of
    all games of a batch over its median time), ``reference_<kind>_gps`` and ``ratio_<kind>`` (None
    where a bot has no reference version). Context: game, players, batch_size (random and greedy),
    planner_batch_size, batch_sizes and repeats per figure, reference_games, seed, compile_seconds
    (every kind's first call) and warm_up_seconds per kind, numpy, python and numba versions.
    """
    game = get_game(game_name)
    check_players(game, players)
    _check_sizes(batch_size=batch_size, repeats=repeats, reference_games=reference_games,
                 planner_batch_size=planner_batch_size)
    result: dict[str, Any] = {
        "game": game.name, "players": players, "batch_size": batch_size,
        "planner_batch_size": planner_batch_size, "batch_sizes": {}, "repeats": {},
        "reference_games": min(reference_games, batch_size), "seed": seed, "warm_up_seconds": {},
        **versions(),
    }
    for kind in [k for k in kinds if k in game.bots]:
        size = planner_batch_size if kind == "planner" else batch_size
        result["batch_sizes"][kind] = size
        _bench_kind(result, game, config, players, kind, game_seeds(seed, np.arange(size)), repeats,
                    reference_games)
    result["compile_seconds"] = sum(result["warm_up_seconds"].values())
    return result


def _bench_kind(result: dict[str, Any], game: Any, config: Any, players: int, kind: str, seeds: np.ndarray,
                repeats: int | None, reference_games: int) -> None:
    """Time one bot kind in every seat, batched and on the reference, into ``result``."""
    max_turns = game.max_turns(config)
    choices = [resolve_bot(game, config, kind)] * game.seats(players)
    engine = game.batched(config, players)
    bots = batched_bots(game, engine, choices)
    finals = []

    def play(deals: np.ndarray) -> None:
        finals.append(play_batch(engine, bots, deals, max_turns)[0])

    result["warm_up_seconds"][kind] = _seconds(lambda: play(seeds[:WARM_UP_GAMES]))
    seconds, result["repeats"][kind] = median_seconds(lambda: play(seeds), repeats)
    result[f"batched_{kind}_gps"] = len(seeds) / seconds
    result[f"{kind}_decisions_per_s"] = int(finals[-1].decisions.sum()) / seconds
    reference_gps = None
    if game.bots[kind].reference is not None:
        players_bots = reference_bots(game, choices)
        deals = [int(s) for s in seeds[:reference_games]]

        def play_reference_games() -> None:
            for s in deals:
                play_reference(game.reference(config, players, s), players_bots, s, max_turns)

        seconds, result["repeats"][f"reference_{kind}"] = median_seconds(play_reference_games, repeats)
        reference_gps = len(deals) / seconds
    result[f"reference_{kind}_gps"] = reference_gps
    result[f"ratio_{kind}"] = result[f"batched_{kind}_gps"] / reference_gps if reference_gps else None


def _rate(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def format_bench(result: dict[str, Any], kinds: Sequence[str] = BOT_KINDS) -> str:
    lines = [
        f"{result['game']}, {result['players']} players: median of timed runs after a warm-up of "
        f"{result['compile_seconds']:.2f} s (first calls, compiling); reference "
        f"{result['reference_games']:,} games a run (numpy {result['numpy']}, numba {result['numba']})",
        f"  {'bots':<8}{'batch':>7}{'runs':>6}{'batched games/s':>17}{'decisions/s':>13}"
        f"{'reference games/s':>19}{'runs':>6}{'ratio':>9}",
    ]
    for kind in [k for k in kinds if f"batched_{k}_gps" in result]:
        ratio, repeats = result[f"ratio_{kind}"], result["repeats"]
        lines.append(
            f"  {kind:<8}{result['batch_sizes'][kind]:>7,}{repeats[kind]:>6}{_rate(result[f'batched_{kind}_gps']):>17}"
            f"{_rate(result[f'{kind}_decisions_per_s']):>13}{_rate(result[f'reference_{kind}_gps']):>19}"
            f"{repeats.get(f'reference_{kind}', ''):>6}{f'{ratio:,.1f}x' if ratio else 'n/a':>9}")
    return "\n".join(lines)


def bench_all(batch_size: int = BATCH_SIZE, repeats: int | None = None, reference_games: int = REFERENCE_GAMES,
              seed: int = 0, planner_batch_size: int = PLANNER_BATCH_SIZE) -> dict[str, Any]:
    """:func:`bench` for every game and every player count it supports, in one run."""
    from sims.registry import game_names

    started = time.perf_counter()
    runs = []
    for name in game_names():
        game = get_game(name)
        config = game.load_config(None, ())
        for players in game.player_counts:
            runs.append(bench(name, config, players, batch_size=batch_size, repeats=repeats,
                              reference_games=reference_games, seed=seed, planner_batch_size=planner_batch_size))
    return {**versions(), "seconds": time.perf_counter() - started, "runs": runs}
