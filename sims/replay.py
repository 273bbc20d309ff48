"""One game of a run, turn by turn, as text (``glade replay`` and golden playthroughs)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sims.core.engine import GameConfig, ReferenceBot
from sims.core.play import batched_bots, play_batch, resolve_bot, seat_labels
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.records import load_manifest
from sims.registry import get_game
from sims.runner import lineup, seat_rotations
from sims.runspec import RunSpec


def replay_text(
    game_name: str,
    config: GameConfig,
    players: int,
    seed: int,
    game_id: int,
    bot_labels: Sequence[str],
    rotate_seats: bool = False,
    rotations: int | None = None,
    scores: bool = False,
    board: str = "full",
    explain: bool = False,
    bot_streams: str = "",
) -> str:
    """The game ``game_id`` of a run with these options, played batched, shown on the reference engine.

    The batched engine plays the game exactly as ``glade play`` did; its
    actions are then stepped through a reference game, which draws each
    position, so the text also checks the two engines agree on this game.
    ``rotations`` (a run's recorded rotations) numbers the games instead of
    ``rotate_seats``; ``scores`` adds every seat's running score after each
    turn and prints a board's ``legend:`` line once, not after every turn.
    ``board`` is ``"full"`` (the game's whole board) or ``"compact"`` (a few
    lines a position); ``explain`` adds each bot's top candidates and their
    scores before its decision (:meth:`ReferenceBot.explain`).
    """
    game = get_game(game_name)
    choices = [resolve_bot(game, config, label) for label in seat_labels(game, players, bot_labels)]
    if rotations is None:
        rotations, _ = seat_rotations(choices, players, rotate_seats)
    deal, rotation = divmod(game_id, rotations)
    seats = lineup(choices, rotation, players)
    game_seed = int(game_seeds(seed, np.array([deal]))[0])
    max_turns = game.max_turns(config)
    engine = game.batched(config, players)
    _, trace = play_batch(engine, batched_bots(game, engine, seats, bot_streams), np.array([game_seed], np.uint64),
                          max_turns)

    lines = [f"{game.name} game {game_id}: deal {deal}, rotation {rotation}, seed {game_seed}",
             "seats: " + ", ".join(f"{s} {c.label}" for s, c in enumerate(seats))]
    reference = game.reference(config, players, game_seed)
    shown: set[str] = set()
    render = game.render_compact if board == "compact" and game.render_compact else game.render_reference
    explainers = _explainers(game, seats) if explain else None
    lines.append(_board(render(reference), shown, scores))
    for action in trace.game_actions(0):
        if not reference.done and reference.turn >= max_turns:
            break
        seat = reference.to_move
        lines.append(f"\nturn {reference.turn}  seat {seat} ({seats[seat].label}): "
                     f"{game.describe_action(reference, action)}")
        if explainers is not None:
            lines += _explanation(game, reference, explainers[seat], seats[seat].label, game_seed, action)
        try:
            reference.apply(action)
        except ValueError as error:
            raise ConfigError(f"replay {game.name}", f"game {game_id}",
                              f"actions the reference engine accepts; it refuses {action} ({error}); "
                              f"run glade verify {game.name}", has_got=False) from None
        reference.decisions += 1
        lines.append(_board(render(reference), shown, scores))
        if scores:
            lines.append(_running_scores(reference, seats))
    if not reference.done and reference.turn >= max_turns:
        reference.stall()
    outcome = reference.result()
    lines.append(f"\nresult: {outcome['end']} after {outcome['turns']} turns")
    for seat, choice in enumerate(seats):
        rank = outcome["rank"][seat]
        place = f"rank {rank}" if rank else "no rank (stall)"
        lines.append(f"  seat {seat} ({choice.label}): score {outcome['score'][seat]:g}, {place}")
    return "\n".join(lines)


def _board(text: str, shown: set[str], compact: bool) -> str:
    """A rendered position; with ``compact``, a ``legend:`` line already in ``shown`` is left out."""
    if not compact:
        return text
    kept = [line for line in text.splitlines() if not (line.startswith("legend:") and line in shown)]
    shown.update(line for line in kept if line.startswith("legend:"))
    return "\n".join(kept)


TOP_CANDIDATES = 5


def _explainers(game: Any, seats: Sequence[Any]) -> list[ReferenceBot | None]:
    """Each seat's reference bot (None where its kind has no reference implementation, as the planner)."""
    factories = [game.bots[choice.kind].reference for choice in seats]
    return [None if make is None else make(seat, choice.weights)
            for seat, (make, choice) in enumerate(zip(factories, seats))]


def _explanation(game: Any, reference: Any, bot: ReferenceBot | None, label: str, seed: int, action: int) -> list[str]:
    """``  why:`` lines: the bot's top candidates with their scores, best first, each action in words."""
    if bot is None:
        return [f"  why: {label} has no reference implementation to explain its choice"]
    ranked = bot.explain(reference, seed)
    if ranked is None:
        return [f"  why: {label} does not rank its candidates"]
    if len(ranked) == 1:
        lines = ["  why: the only legal action"]
    elif bot.explains == "chance":
        lines = [f"  why: uniform among {len(ranked)} legal actions"]
    else:
        width = len(str(min(len(ranked), TOP_CANDIDATES)))
        lines = [f"  {'why:' if place == 1 else '    '} {place:>{width}}. {score:+.6g}  "
                 f"{game.describe_action(reference, candidate)}"
                 for place, (candidate, score) in enumerate(ranked[:TOP_CANDIDATES], start=1)]
        lines[-1] += f"   ({len(ranked)} legal)"
        if ranked[0][1] == ranked[1][1]:
            lines[0] += "   (tied best: the bot's seeded tie-break ordered them)"
    if ranked[0][0] != action:
        lines.append(f"  note: the reference bot would play {game.describe_action(reference, ranked[0][0])}: "
                     f"the engines disagree here (run glade verify {game.name})")
    return lines


def _running_scores(reference: Any, seats: Sequence[Any]) -> str:
    """``scores: 0 greedy 3, 1 random 2``: the score each seat would have if the game ended now."""
    now = copy.deepcopy(reference).result()["score"]
    return "scores: " + ", ".join(f"{seat} {choice.label} {now[seat]:g}" for seat, choice in enumerate(seats))


def run_replay(out_dir: str | Path, game_id: int, scores: bool = True, board: str = "full",
               explain: bool = False) -> str:
    """Game ``game_id`` of the run in ``out_dir``, from its manifest (game, config, bots, players, seed, rotations).

    The config is the one the manifest recorded, checked against the run's
    config hash, so the game shown is the game the records hold.
    """
    manifest = load_manifest(out_dir)
    spec = RunSpec.from_manifest(manifest, Path(out_dir) / "manifest.json")
    rotations = int(manifest.get("rotations", manifest["players"] if manifest["rotate_seats"] else 1))
    games = manifest["games"] * rotations
    if not 0 <= game_id < games:
        raise ConfigError("--game", str(game_id), f"a game id of {out_dir}: 0 to {games - 1}", has_got=False)
    streams = spec.bot_streams
    if streams and explain:
        raise ConfigError("--explain", "true", f"a run whose bots draw from the usual streams ({out_dir} is a placebo "
                          f"run: its bots draw from {streams}/bot/<seat>, which the reference bots' explanations do "
                          "not); replay it without --explain", has_got=False)
    return replay_text(spec.game, spec.config, spec.players, spec.seed, game_id, spec.bots, rotations=rotations,
                       scores=scores, board=board, explain=explain, bot_streams=streams)
