"""Batched engine against reference engine: ``glade verify``.

Plays games on the batched engine with mixed bots, recording the legal set at
every decision; replays each game's trace on a fresh reference game (every
action must be legal there and the legal sets must agree); then compares the
final results and snapshots. The two engines share only the config and the
random streams, so agreement over thousands of games is evidence that both
implement the rules as written.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sims.core.engine import GameConfig, GameDefinition, GameResults, ReferenceGame
from sims.core.play import batched_bots, check_players, play_batch, replay_on_reference, resolve_bot, seat_labels
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.registry import get_game


@dataclass
class MismatchDetail:
    """Where and how the reference first disagreed with one batched game."""

    game: int  # deal index of the verify run
    seed: int
    bots: tuple[str, ...]
    decision: int | None  # None: the results or final snapshots differ
    what: str
    actions: list[int]  # the trace up to and including the decision
    position: str  # the reference rendered where it disagreed

    def format(self) -> str:
        where = f"decision {self.decision}" if self.decision is not None else "end of game"
        lines = [
            f"first mismatch: game {self.game} (seed {self.seed}, bots {','.join(self.bots)}), {where}",
            f"  {self.what}",
            f"  actions so far ({len(self.actions)}): {self.actions}",
            "  reference position:",
        ]
        lines += ["    " + line for line in self.position.splitlines()]
        return "\n".join(lines)


@dataclass
class VerifyReport:
    game: str
    players: int
    games: int
    mismatches: int
    seconds: float
    lineups: list[tuple[str, ...]]
    first: MismatchDetail | None = None
    mismatched_games: list[int] = field(default_factory=list)
    ends: dict[str, int] = field(default_factory=dict)  # games per end reason (the batched engine's)

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def format(self) -> str:
        mixes = " / ".join(",".join(l) for l in self.lineups)
        lines = [
            f"{self.games} games, {self.mismatches} mismatches",
            f"  {self.game}, {self.players} players, bots {mixes}; {self.seconds:.1f} s",
        ]
        if self.ends:
            lines.append("  ends: " + ", ".join(f"{end} {count}" for end, count in self.ends.items()))
        if self.first is not None:
            lines.append(self.first.format())
        return "\n".join(lines)


def default_lineups(game: GameDefinition, players: int) -> list[tuple[str, ...]]:
    """Every combination of the game's bots that have a reference version (the cheap ones)."""
    kinds = [name for name, spec in game.bots.items() if spec.reference is not None] or list(game.bots)[:1]
    return [tuple(combo) for combo in itertools.product(kinds, repeat=game.seats(players))]


def verify(
    game_name: str,
    config: GameConfig,
    players: int,
    games: int,
    seed: int,
    bot_labels: Sequence[str] | None = None,
    batch_size: int = 500,
    jobs: int = 1,
) -> VerifyReport:
    """Play ``games`` games batched, replay each on the reference, count disagreements.

    Chunks of games cycle through the lineups (``bot_labels``, or every mix of
    the game's reference-backed bots); chunks are made small enough that every
    lineup is used. ``jobs`` worker processes check chunks side by side (the
    games and the report are the same for any ``jobs``).
    """
    game = get_game(game_name)
    check_players(game, players)
    for option, value in (("--games", games), ("--batch-size", batch_size), ("--jobs", jobs)):
        if value < 1:
            raise ConfigError(option, str(value), "an integer of at least 1", has_got=False)
    from sims.runner import check_deals

    check_deals("--games", games)  # deal numbers as a run's: the checked games are those glade play would play
    if bot_labels is not None:
        lineups = [tuple(seat_labels(game, players, bot_labels))]
    else:
        lineups = default_lineups(game, players)
    for labels in lineups:
        for label in labels:
            resolve_bot(game, config, label)
    chunk = max(1, min(batch_size, math.ceil(games / len(lineups))))
    piece = max(1, math.ceil(games / (2 * jobs))) if jobs > 1 else chunk  # keep every worker busy
    tasks = [(game.name, config, players, lineups[number % len(lineups)], seed, first, min(first + piece, stop))
             for number, start in enumerate(range(0, games, chunk))
             for stop in [min(start + chunk, games)]
             for first in range(start, stop, piece)]

    started = time.perf_counter()
    if jobs > 1:
        from joblib import delayed

        from sims.core.compiling import warm_runs
        from sims.runner import local_workers

        warm_runs(game.name, [(config, labels, players) for labels in lineups])  # compiled once, not per worker
        with local_workers(jobs) as parallel:
            outcomes = parallel(delayed(verify_chunk)(*task) for task in tasks)
    else:
        outcomes = [verify_chunk(*task) for task in tasks]
    report = VerifyReport(game.name, players, games, 0, 0.0, lineups)
    for mismatched, first, ends in outcomes:
        for end, count in ends.items():
            report.ends[end] = report.ends.get(end, 0) + count
        report.mismatches += len(mismatched)
        report.mismatched_games.extend(mismatched)
        if report.first is None:
            report.first = first
    report.ends = dict(sorted(report.ends.items(), key=lambda item: (-item[1], item[0])))
    report.seconds = time.perf_counter() - started
    return report


def verify_chunk(game_name: str, config: GameConfig, players: int, labels: Sequence[str], seed: int, start: int,
                 stop: int) -> tuple[list[int], MismatchDetail | None, dict[str, int]]:
    """Deals ``[start, stop)`` played batched by ``labels`` and replayed on the reference: the deals
    that disagree, the first disagreement in detail, and the games per end reason."""
    game = get_game(game_name)
    choices = tuple(resolve_bot(game, config, label) for label in labels)
    max_turns = game.max_turns(config)
    engine = game.batched(config, players)
    deals = np.arange(start, stop)
    seeds = game_seeds(seed, deals)
    state, trace = play_batch(engine, batched_bots(game, engine, choices), seeds, max_turns, record_legal=True)
    results = engine.results(state)
    mismatched, first = [], None
    for index, deal in enumerate(deals):
        detail = _check_game(game, engine, config, players, state, trace, results, index, int(seeds[index]),
                             max_turns)
        if detail is None:
            continue
        mismatched.append(int(deal))
        if first is None:
            decision, what, actions, position = detail
            first = MismatchDetail(int(deal), int(seeds[index]), tuple(labels), decision, what, actions, position)
    names, counts = np.unique(np.asarray(engine.end_reasons)[results.end], return_counts=True)
    return mismatched, first, {str(name): int(count) for name, count in zip(names, counts)}


def _check_game(game, engine, config, players, state, trace, results: GameResults, index: int, seed: int,
                max_turns: int) -> tuple[int | None, str, list[int], str] | None:
    """None if the reference agrees with batched game ``index``; else (decision, what, actions, position)."""
    actions = trace.game_actions(index)
    hashes = trace.legal_hashes[index, : len(actions)] if trace.legal_hashes is not None else None
    reference = game.reference(config, players, seed)
    try:
        reference, problem, decision = replay_on_reference(reference, actions, hashes, max_turns)
    except Exception as error:  # a reference bug must be reported, not crash the run
        problem, decision = f"the reference raised {type(error).__name__}: {error}", reference.decisions
    if problem is not None:
        upto = actions[: decision + 1] if decision is not None else actions
        return decision, problem, upto, _render(game, reference)
    try:
        what = _compare_results(reference.result(), _batched_result(engine, results, index))
        if what is None:
            what = _compare("snapshot", reference.snapshot(), engine.snapshot(state, index))
    except Exception as error:
        what = f"comparing raised {type(error).__name__}: {error}"
    if what is None:
        return None
    return None, what, actions, _render(game, reference)


def _render(game: GameDefinition, reference: ReferenceGame) -> str:
    try:
        return game.render_reference(reference)
    except Exception as error:
        return f"(render failed: {type(error).__name__}: {error})"


def _batched_result(engine, results: GameResults, index: int) -> dict[str, Any]:
    return {
        "score": results.score[index],
        "rank": results.rank[index],
        "end": engine.end_reasons[int(results.end[index])],
        "turns": results.turns[index],
        "seat_columns": {name: values[index] for name, values in results.seat_columns.items()},
        "game_columns": {name: values[index] for name, values in results.game_columns.items()},
    }


def _compare_results(reference: Mapping[str, Any], batched: Mapping[str, Any]) -> str | None:
    for key in ("score", "rank", "end", "turns"):
        what = _compare(key, reference.get(key), batched[key])
        if what:
            return what
    for group in ("seat_columns", "game_columns"):
        theirs = reference.get(group) or {}
        for name, value in batched[group].items():
            if name not in theirs:
                if group == "game_columns" and not theirs:
                    continue  # references may leave game columns out
                return f"{group} {name!r} is missing from the reference result"
            what = _compare(f"{group}.{name}", theirs[name], value)
            if what:
                return what
    return None


def _compare(key: str, reference: Any, batched: Any) -> str | None:
    """None if equal (floats to 1e-9), else where they differ."""
    reference, batched = plain(reference), plain(batched)
    path = _first_difference(reference, batched, key)
    if path is None:
        return None
    where, mine, theirs = path
    return f"{where}: batched {_short(theirs)}, reference {_short(mine)}"


def _first_difference(a: Any, b: Any, path: str) -> tuple[str, Any, Any] | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}", a.get(key, "(missing)"), b.get(key, "(missing)")
            found = _first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} (length)", a, b
        for i, (x, y) in enumerate(zip(a, b)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return f"{path}", a, b
        return None
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
                and not isinstance(b, bool) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            return None
        return path, a, b
    return None if a == b else (path, a, b)


def plain(value: Any) -> Any:
    """numpy scalars and arrays, tuples and sets as plain Python values, for comparison and printing."""
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
