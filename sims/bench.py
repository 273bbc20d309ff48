"""Games per second of both engines: ``glade bench``.

For each bot kind (random, greedy) every seat plays that kind. The batched
engine plays ``batch_size`` deals in one :func:`play_batch` call; the
reference engine plays the first ``reference_games`` of the same deals one at
a time with the reference bots (it is much slower, so it gets fewer games).
Each figure is the median of ``repeats`` timed runs after a warm-up (one
batch; one reference game), in this one process; the ratios come from the same run, so they stay meaningful
on a noisy, shared machine where absolute figures drift.
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

BOT_KINDS = ("random", "greedy")


def _median_rate(work: Callable[[], None], games: int, repeats: int, warm_up: Callable[[], None]) -> float:
    warm_up()  # imports, caches, first-touch allocations
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return games / statistics.median(times)


def bench(
    game_name: str,
    config: Any,
    players: int,
    batch_size: int = 4096,
    repeats: int = 5,
    reference_games: int = 30,
    seed: int = 0,
    kinds: Sequence[str] = BOT_KINDS,
) -> dict[str, Any]:
    """Median games/s of the batched and the reference engine, and their ratio, per bot kind.

    Keys: ``batched_<kind>_gps``, ``reference_<kind>_gps``, ``ratio_<kind>``
    for each kind (None where a bot has no reference version), plus the
    context: game, players, batch_size, repeats, reference_games, seed,
    numpy and python versions.
    """
    game = get_game(game_name)
    check_players(game, players)
    for option, value in (("--batch-size", batch_size), ("--repeats", repeats),
                          ("--reference-games", reference_games)):
        if value < 1:
            raise ConfigError(option, str(value), "an integer of at least 1", has_got=False)
    max_turns = game.max_turns(config)
    seeds = game_seeds(seed, np.arange(batch_size))
    reference_seeds = [int(s) for s in seeds[: min(reference_games, batch_size)]]
    result: dict[str, Any] = {
        "game": game.name,
        "players": players,
        "batch_size": batch_size,
        "repeats": repeats,
        "batched_games": batch_size,
        "reference_games": len(reference_seeds),
        "seed": seed,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    for kind in kinds:
        choices = [resolve_bot(game, config, kind)] * game.seats(players)
        engine = game.batched(config, players)
        bots = batched_bots(game, engine, choices)
        play_all_batched = lambda: play_batch(engine, bots, seeds, max_turns)  # noqa: E731
        result[f"batched_{kind}_gps"] = _median_rate(play_all_batched, batch_size, repeats, play_all_batched)
        reference_gps = None
        if game.bots[kind].reference is not None:
            players_bots = reference_bots(game, choices)

            def play_reference_games(games: list[int]) -> None:
                for s in games:
                    play_reference(game.reference(config, players, s), players_bots, s, max_turns)

            reference_gps = _median_rate(lambda: play_reference_games(reference_seeds), len(reference_seeds), repeats,
                                         lambda: play_reference_games(reference_seeds[:1]))
        result[f"reference_{kind}_gps"] = reference_gps
        result[f"ratio_{kind}"] = result[f"batched_{kind}_gps"] / reference_gps if reference_gps else None
    return result


def format_bench(result: dict[str, Any], kinds: Sequence[str] = BOT_KINDS) -> str:
    lines = [
        f"{result['game']}, {result['players']} players: batched {result['batched_games']:,} games a run, "
        f"reference {result['reference_games']:,}; median of {result['repeats']} runs after a warm-up "
        f"(numpy {result['numpy']})",
        f"  {'bots':<8}{'batched games/s':>18}{'reference games/s':>20}{'ratio':>10}",
    ]
    for kind in kinds:
        batched, reference, ratio = (result[f"batched_{kind}_gps"], result[f"reference_{kind}_gps"],
                                     result[f"ratio_{kind}"])
        ref_text = (f"{reference:,.0f}" if reference >= 100 else f"{reference:.2f}") if reference else "n/a"
        ratio_text = f"{ratio:,.1f}x" if ratio else "n/a"
        lines.append(f"  {kind:<8}{batched:>18,.0f}{ref_text:>20}{ratio_text:>10}")
    return "\n".join(lines)


def bench_all(batch_size: int = 4096, repeats: int = 5, reference_games: int = 30, seed: int = 0) -> dict[str, Any]:
    """:func:`bench` for every game and every player count it supports, in one run."""
    from sims.registry import game_names

    runs = []
    for name in game_names():
        game = get_game(name)
        config = game.load_config(None, ())
        for players in game.player_counts:
            runs.append(bench(name, config, players, batch_size, repeats, reference_games, seed))
    return {"numpy": np.__version__, "python": platform.python_version(), "runs": runs}
