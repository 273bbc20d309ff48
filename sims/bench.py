"""Games and decisions per second of both engines: ``glade bench``.

For each bot kind (random, greedy, planner) every seat plays that kind. The
batched engine plays one batch of deals per :func:`play_batch` call
(``batch_size`` deals; the slow planner ``planner_batch_size``); the
reference engine plays the first ``reference_games`` of the same deals one
at a time with the reference bots (the planner has none).

Before any timing each kind plays :data:`WARM_UP_GAMES` deals once: that
first call imports, allocates and compiles the numba kernels (cached on disk
afterwards); its wall time is reported apart as ``warm_up_seconds`` and, summed,
``compile_seconds``. The speed figures are **CPU time** of this process
(:func:`time.process_time`; run it single-threaded, as ``make bench`` does),
which a machine shared with other work disturbs far less than wall time.

Without an explicit ``repeats`` every figure gets a budget of ``budget``
CPU seconds, so ``glade bench --all`` stays short however slow a bot is:

* batched: batches of 1, 4, 16 ... deals are timed up to the whole batch;
  a bot too slow for the whole batch in the budget stops at the largest that
  fits (:func:`affordable_batch`), reported in ``batch_sizes``. That batch is
  played again until the budget is spent (fast bots such as random play many
  thousands of decisions), at most :data:`MAX_REPEATS` runs; the figure is the
  median run.
* reference: the deals are played one decision after another until they end
  or the budget is spent (then inside a game). Both engines play the same
  deals with bots that choose alike, so the reference's games/s is its
  decisions/s over the decisions those deals take in the batched run; with
  whole games played that is exactly games over seconds.

With ``repeats`` every figure is the median of exactly that many runs of the
whole batch and of whole reference games.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sims.core.engine import GameConfig, GameDefinition
from sims.core.learned import LEARNED, learned_path
from sims.core.play import batched_bots, check_players, play_batch, play_reference, reference_bots, resolve_bot
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.registry import get_game

BOT_KINDS = ("random", "greedy", "learned", "planner")  # learned: where the game has it at that count
BATCH_SIZE = 1024
PLANNER_BATCH_SIZE = 32
REFERENCE_GAMES = 2
MAX_REPEATS = 25
BUDGET = 1.5  # CPU seconds of timed runs a figure gets when repeats are not given
WARM_UP_GAMES = 1
CLOCKS = {"figures": "cpu (time.process_time of this process)", "compile_seconds": "wall",
          "warm_up_seconds": "wall", "seconds": "wall"}


def versions() -> dict[str, str | None]:
    """numpy, python and numba versions (numba None if it is not installed)."""
    try:
        import numba
        numba_version: str | None = numba.__version__
    except ImportError:
        numba_version = None
    return {"numpy": np.__version__, "python": platform.python_version(), "numba": numba_version}


def _wall_seconds(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _cpu_seconds(work: Callable[[], Any]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def median_seconds(work: Callable[[], Any], repeats: int | None, budget: float = BUDGET,
                   done: Sequence[float] = ()) -> tuple[float, int]:
    """Median CPU time of runs of ``work`` and how many ran: exactly ``repeats``, or, if None, until
    ``budget`` seconds are spent (at least one run, at most :data:`MAX_REPEATS`); ``done``: times of runs
    already made."""
    times = list(done)
    while len(times) < (repeats or MAX_REPEATS):
        times.append(_cpu_seconds(work))
        if repeats is None and sum(times) >= budget:
            break
    return statistics.median(times), len(times)


def _check_sizes(**sizes: int | float | None) -> None:
    for option, value in sizes.items():
        if value is not None and not value > 0:
            raise ConfigError("--" + option.replace("_", "-"), str(value), "a number above 0", has_got=False)


def bench(
    game_name: str,
    config: GameConfig,
    players: int,
    batch_size: int = BATCH_SIZE,
    repeats: int | None = None,
    reference_games: int = REFERENCE_GAMES,
    seed: int = 0,
    kinds: Sequence[str] = BOT_KINDS,
    planner_batch_size: int = PLANNER_BATCH_SIZE,
    budget: float = BUDGET,
) -> dict[str, Any]:
    """Games/s and decisions/s (CPU time) of the batched and the reference engine, and their ratio, per bot kind.

    Keys for each kind the game has: ``batched_<kind>_gps``, ``<kind>_decisions_per_s`` (decisions of
    all games of a batch over its median time), ``reference_<kind>_gps`` and ``ratio_<kind>`` (None
    where a bot has no reference version). Context: game, players, batch_size (asked for random and
    greedy), planner_batch_size (asked for), batch_sizes (played) and repeats per figure,
    reference_games (asked for) and reference_decisions (played) per kind, budget_seconds (per figure,
    None with repeats), seed, clocks, compile_seconds (every kind's first call) and warm_up_seconds per
    kind, numpy, python and numba versions.
    """
    game = get_game(game_name)
    check_players(game, players)
    _check_sizes(batch_size=batch_size, repeats=repeats, reference_games=reference_games,
                 planner_batch_size=planner_batch_size, budget=budget)
    result: dict[str, Any] = {
        "game": game.name, "players": players, "batch_size": batch_size,
        "planner_batch_size": planner_batch_size, "batch_sizes": {}, "repeats": {},
        "reference_games": reference_games, "reference_decisions": {}, "seed": seed,
        "budget_seconds": None if repeats else budget, "clocks": CLOCKS, "warm_up_seconds": {}, **versions(),
    }
    for kind in [k for k in kinds if k in game.bots or (k == LEARNED and learned_path(game.name, players).exists())]:
        size = planner_batch_size if kind == "planner" else batch_size
        _bench_kind(result, game, config, players, kind, game_seeds(seed, np.arange(size)), repeats, budget)
    result["compile_seconds"] = sum(result["warm_up_seconds"].values())
    return result


def _bench_kind(result: dict[str, Any], game: GameDefinition, config: GameConfig, players: int, kind: str, seeds: np.ndarray,
                repeats: int | None, budget: float) -> None:
    """Time one bot kind in every seat, batched and on the reference, into ``result``."""
    max_turns = game.max_turns(config)
    choices = [resolve_bot(game, config, kind)] * game.seats(players)
    engine = game.batched(config, players)
    bots = batched_bots(game, engine, choices)
    finals = []

    def play(deals: np.ndarray) -> None:
        finals.append(play_batch(engine, bots, deals, max_turns)[0])

    warm_up = seeds[:WARM_UP_GAMES]
    result["warm_up_seconds"][kind] = _wall_seconds(lambda: play(warm_up))
    first: list[float] = []
    if repeats is None:
        size, seconds = affordable_batch(lambda n: _cpu_seconds(lambda: play(seeds[:n])), len(seeds),
                                         len(warm_up), budget)
        seeds, first = seeds[:size], [seconds]
    run_seconds, result["repeats"][kind] = median_seconds(lambda: play(seeds), repeats, budget, first)
    result["batch_sizes"][kind] = len(seeds)
    result[f"batched_{kind}_gps"] = len(seeds) / run_seconds
    result[f"{kind}_decisions_per_s"] = int(finals[-1].decisions.sum()) / run_seconds
    reference_gps = None
    if game.bots[choices[0].kind].reference is not None:
        deals = [int(s) for s in seeds[:result["reference_games"]]]
        decisions_per_deal = float(finals[-1].decisions[:len(deals)].mean())
        decisions_per_s, result["repeats"][f"reference_{kind}"], result["reference_decisions"][kind] = (
            _reference_speed(game, config, players, choices, deals, max_turns, repeats, budget))
        reference_gps = decisions_per_s / decisions_per_deal
    result[f"reference_{kind}_gps"] = reference_gps
    result[f"ratio_{kind}"] = result[f"batched_{kind}_gps"] / reference_gps if reference_gps else None


def affordable_batch(seconds_of: Callable[[int], float], size: int, least: int, budget: float) -> tuple[int, float]:
    """The batch to time and the CPU seconds of one run of it: runs of ``least``, 4x that ... up to ``size``
    deals (``seconds_of(n)`` plays ``n``), stopping before a batch that would not fit ``budget`` at the last
    run's cost per deal (an upper bound: a larger batch costs less per deal)."""
    played, seconds = least, seconds_of(least)
    while played < size:
        bigger = min(size, 4 * played)
        if seconds * bigger / played > budget:
            break
        played, seconds = bigger, seconds_of(bigger)
    return played, seconds


def _reference_speed(game: GameDefinition, config: GameConfig, players: int, choices: Sequence[Any], deals: Sequence[int],
                     max_turns: int, repeats: int | None, budget: float) -> tuple[float, int, int]:
    """Reference decisions/s (CPU), runs and decisions of the last run: ``repeats`` runs of whole games, or one
    run until the deals end or ``budget`` seconds are spent."""
    players_bots = reference_bots(game, choices)
    played: list[int] = []

    def run() -> None:
        started = time.process_time()
        out_of_time = None if repeats else (lambda: time.process_time() - started >= budget)
        played.append(0)
        for s in deals:
            final = play_reference(game.reference(config, players, s), players_bots, s, max_turns, out_of_time)
            played[-1] += final.decisions
            if not final.done:
                break

    run_seconds, runs = median_seconds(run, repeats or 1, budget)
    return played[-1] / run_seconds, runs, played[-1]


def _rate(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def format_bench(result: dict[str, Any], kinds: Sequence[str] = BOT_KINDS) -> str:
    """A readable table of one :func:`bench` result."""
    budget = (f"a budget of {result['budget_seconds']:g} CPU s a figure" if result.get("budget_seconds")
              else "the median of the given repeats")
    lines = [
        f"{result['game']}, {result['players']} players: games/s and decisions/s in CPU time, {budget}, after "
        f"warm-ups (first calls, compiling) of {result['compile_seconds']:.2f} s wall; reference: "
        f"the first {result['reference_games']:,} deals (numpy {result['numpy']}, numba {result['numba']})",
        f"  {'bots':<8}{'batch':>7}{'runs':>6}{'batched games/s':>17}{'decisions/s':>13}"
        f"{'reference games/s':>19}{'decisions':>11}{'ratio':>10}",
    ]
    for kind in [k for k in kinds if f"batched_{k}_gps" in result]:
        ratio = result[f"ratio_{kind}"]
        lines.append(
            f"  {kind:<8}{result['batch_sizes'][kind]:>7,}{result['repeats'][kind]:>6}"
            f"{_rate(result[f'batched_{kind}_gps']):>17}{_rate(result[f'{kind}_decisions_per_s']):>13}"
            f"{_rate(result[f'reference_{kind}_gps']):>19}{result['reference_decisions'].get(kind, ''):>11}"
            f"{f'{ratio:,.1f}x' if ratio else 'n/a':>10}")
    return "\n".join(lines)


def bench_all(batch_size: int = BATCH_SIZE, repeats: int | None = None, reference_games: int = REFERENCE_GAMES,
              seed: int = 0, planner_batch_size: int = PLANNER_BATCH_SIZE, budget: float = BUDGET) -> dict[str, Any]:
    """:func:`bench` for every game and every player count it supports, in one run; ``seconds`` is the
    whole run's wall time."""
    from sims.registry import game_names

    started = time.perf_counter()
    runs = []
    for name in game_names():
        game = get_game(name)
        config = game.load_config(None, ())
        for players in game.player_counts:
            runs.append(bench(name, config, players, batch_size=batch_size, repeats=repeats,
                              reference_games=reference_games, seed=seed, planner_batch_size=planner_batch_size,
                              budget=budget))
    return {**versions(), "clocks": CLOCKS, "seconds": time.perf_counter() - started, "runs": runs}
