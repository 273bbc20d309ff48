"""``glade``: the command line. Thin: parse, call the library, print.

Every error a user can cause (config, arguments, run directory) is printed as
one line ``error: ...`` on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from sims.core.engine import GameConfig, GameDefinition
from sims.core.play import check_players, seat_labels
from sims.core.spec import ConfigError, default_config_path
from sims.records import DETAIL_DEALS


class GladeError(click.ClickException):
    """Shown as one line, ``error: <message>``, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def _usage(error: click.UsageError) -> GladeError:
    hint = f" (see '{error.ctx.command_path} --help')" if error.ctx is not None else ""
    return GladeError(error.format_message() + hint)


class _Glade(click.Group):
    """Turns every error a user can cause into one ``error:`` line (exit status 2)."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.exceptions.NoArgsIsHelpError:
            raise  # plain `glade`: click shows the help
        except click.UsageError as error:  # options of glade itself, e.g. glade --verbose
            raise _usage(error) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ConfigError as error:
            raise GladeError(str(error)) from None
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:
            raise _usage(error) from None
        except BrokenPipeError:
            raise  # glade ... | head: click quiets it
        except KeyboardInterrupt:  # a command without its own line (report, verify, bench, ...)
            _interrupted("interrupted")
        except OSError as error:  # an --out or --config path that cannot be read or written
            raise GladeError(str(error)) from None
        except MemoryError as error:  # a batch too large for this machine
            raise GladeError(f"not enough memory ({error or 'MemoryError'}): use a smaller --batch-size") from None


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``glade --version``: the installed package's version (the one every manifest and report records)."""
    if not value or ctx.resilient_parsing:
        return
    from sims.records import glade_version

    click.echo(f"glade {glade_version()}")
    ctx.exit()


@click.group(cls=_Glade, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show glade's version and exit.")
def main() -> None:
    """Glade: Monte Carlo game balance. Play seeded games with bots, check engines, measure speed.

    \b
        glade --version
        glade games
        glade play overgrowth --games 20000 --seed 1 --bots greedy,random --rotate-seats --out runs/demo
    """
    from sims.core.compiling import listen, say_on_stderr

    listen(say_on_stderr)  # "compiling ... kernels" on stderr whenever numba compiles rather than loads its cache


def _quiet_compiles(_ctx: click.Context, _param: click.Parameter, quiet: bool) -> bool:
    """--quiet also keeps the "compiling ... kernels" notice off stderr."""
    if quiet:
        from sims.core.compiling import listen

        listen(lambda line: None)
    return quiet


# ---------------------------------------------------------------- shared options and helpers


def _game(name: str) -> GameDefinition:
    from sims.registry import get_game

    return get_game(name)


def _config(game: GameDefinition, path: str | None, overrides: Sequence[str]) -> GameConfig:
    return game.load_config(Path(path) if path else None, tuple(overrides))


def _bot_list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    labels = [part.strip() for part in text.split(",")]
    if not all(labels):
        raise ConfigError("--bots", text, "comma-separated bot names such as greedy,random", has_got=False)
    return labels


def _players(game: GameDefinition, players: int | None, bots: Sequence[str] | None) -> int:
    """--players, else the number of bots if the game allows it, else the smallest multiplayer count."""
    if players is None:
        multiplayer = [count for count in game.player_counts if count >= 2] or list(game.player_counts)
        players = len(bots) if bots and len(bots) in game.player_counts else min(multiplayer)
    check_players(game, players)
    if bots is not None:
        seat_labels(game, players, bots)
    return players


def click_progress(length: int, label: str) -> Any:
    """The runner's progress display on stderr: a bar on a terminal, else a line every ~10 s (analysis.progress)."""
    from analysis.progress import progress_display

    return progress_display(length, label)


def _warn(line: str) -> None:
    click.echo(line, err=True)


@contextlib.contextmanager
def _interruptible(out_dir: str) -> Iterator[None]:
    """Ctrl-C: one line on stderr (after the progress bar's, on a terminal), exit status 130; the directory keeps
    every finished chunk and the same command resumes it."""
    try:
        yield
    except KeyboardInterrupt:
        _interrupted(f"interrupted: finished chunks are kept in {out_dir}; run the same command again to resume")


def _interrupted(line: str) -> None:
    click.echo(("\n" if sys.stderr.isatty() else "") + line, err=True)
    sys.exit(130)


def _progress_options(command):
    """--progress/--no-progress and --quiet (no progress, no warnings or notes on stderr; results still print)."""
    command = click.option("--quiet", "-q", is_flag=True, callback=_quiet_compiles,
                           help="No progress and no warnings on stderr (errors still show); implies --no-progress.")(
        command)
    command = click.option("--progress/--no-progress", default=True, show_default=True,
                           help="Progress on stderr: a bar on a terminal, else a line every ~10 s with games done, "
                           "games/s and ETA.")(command)
    return command


def _config_options(command):
    command = click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
                           help="Override a config key, e.g. --set rules.flowers=20 (repeatable).")(command)
    command = click.option("--config", "config_path", default=None, metavar="PATH",
                           help="Config file (default: configs/games/GAME.toml).")(command)
    return command


_POSITIVE = click.IntRange(min=1)


def _backend_options(command):
    command = click.option("--scheduler", default=None, metavar="ADDRESS",
                           help="Dask scheduler to use with --backend dask, e.g. tcp://10.0.0.5:8786 "
                                "(default: a local cluster of --jobs workers).")(command)
    command = click.option("--backend", type=click.Choice(["loky", "dask"]), default=None,
                           help="Where chunks run: local processes (loky, the default) or a Dask cluster "
                           "(the default with --scheduler).")(command)
    return command


def _backend(backend: str | None, scheduler: str | None) -> str:
    """--backend as given, else dask with --scheduler, else loky; --backend loky with --scheduler is refused."""
    if backend == "loky" and scheduler is not None:
        raise ConfigError("--scheduler", scheduler, "--backend dask (or no --backend) beside it", has_got=False)
    return backend or ("dask" if scheduler is not None else "loky")


# ---------------------------------------------------------------- games


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.option("--ladder", "ladder_file", default=None, metavar="PATH",
              help="Ladder file with the bots' measured strengths (default: configs/ladder.toml).")
def games(as_json: bool, ladder_file: str | None) -> None:
    """List games, player counts, config files, bots, personas and each bot's measured strength.

    \b
        glade games
        glade games --json
        glade games --ladder configs/ladder.toml
    """
    from analysis.ladder import entries_of, read_ladder
    from sims.registry import game_names

    ladder = read_ladder(Path(ladder_file) if ladder_file else None)
    if as_json:
        click.echo(json.dumps([_game_dict(_game(name), entries_of(ladder, name)) for name in game_names()],
                              indent=2))
        return
    for name in game_names():
        game = _game(name)
        counts = ", ".join(map(str, game.player_counts))
        click.echo(f"{game.name}: {game.title} ({counts} players)")
        if game.describe:
            click.echo(f"  {game.describe}")
        click.echo(f"  config   {default_config_path(game.name)}")
        for bot in game.bots.values():
            note = "" if bot.reference is not None else " (batched only)"
            click.echo(f"  bot      {bot.name}: {bot.description}{note}")
        if "planner" in game.bots:
            from sims.core.play import strong_description

            click.echo(f"  bot      strong: {strong_description(game)} (batched only)")
        from sims.core.learned import learned_descriptions

        for label, text in learned_descriptions(game):
            click.echo(f"  bot      {label}: {text}")
        _echo_strength(entries_of(ladder, name))
        try:
            personas = game.personas(game.load_config(None, ()))
        except ConfigError as error:
            click.echo(f"  personas (config does not load: {error})")
            continue
        for persona, (kind, weights) in sorted(personas.items()):
            shown = ", ".join(f"{k}={v:g}" for k, v in weights.items())
            click.echo(f"  persona  {persona}: {kind} with {shown}")


def _echo_strength(entries: Sequence[dict]) -> None:
    """The ladder's ratings of one game, or "not measured"."""
    from analysis.ladder import strength_lines

    if not entries:
        click.echo("  strength not measured (glade ladder GAME --save; docs/bots.md)")
    for entry in entries:
        heading, *rest = strength_lines(entry)
        click.echo(f"  strength {heading}")
        for line in rest:
            click.echo(f"             {line}")


def _game_dict(game: GameDefinition, ladder: Sequence[dict] = ()) -> dict[str, Any]:
    """What ``glade games --json`` says of one game."""
    data: dict[str, Any] = {
        "name": game.name, "title": game.title, "player_counts": list(game.player_counts),
        "describe": game.describe or "", "config": str(default_config_path(game.name)),
        "bots": [{"name": bot.name, "description": bot.description, "reference": bot.reference is not None}
                 for bot in game.bots.values()],
        "ladder": list(ladder),
    }
    try:
        personas = game.personas(game.load_config(None, ()))
    except ConfigError as error:
        data["config_error"] = str(error)
        return data
    data["personas"] = {name: {"bot": kind, "weights": dict(weights)}
                        for name, (kind, weights) in sorted(personas.items())}
    return data


# ---------------------------------------------------------------- play


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--games", "games_", type=_POSITIVE, required=True, help="Deals to play (per seat rotation).")
@click.option("--seed", type=int, required=True, help="Root seed of the run.")
@click.option("--bots", required=True, help="Comma-separated bots or personas, one per seat.")
@click.option("--players", type=int, default=None, help="Players (default: the number of bots).")
@click.option("--rotate-seats", is_flag=True, help="Play every deal once per seat rotation (paired games).")
@click.option("--trajectories", is_flag=True, help="Also record each seat's score at each round end (lead changes, "
              "comebacks and score trajectories in the report; about 5-8% more play time).")
@click.option("--batch-size", type=_POSITIVE, default=4096, show_default=True, help="Games per chunk.")
@click.option("--jobs", type=_POSITIVE, default=1, show_default=True, help="Worker processes.")
@_backend_options
@_config_options
@click.option("--out", "out_dir", required=True, metavar="DIR", help="Run directory (resumed if it exists).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@_progress_options
@click.option("--until-ci", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None,
              metavar="HALF_WIDTH", help="Add --batch-size x --jobs deals at a time until every seat's win rate "
              "has a 95% half-width at most this (e.g. 0.01): Wilson, or with --rotate-seats a t interval over "
              "deals; --games is then the starting size.")
@click.option("--until-decided", type=click.FloatRange(0, 0.5, min_open=True, max_open=True), default=None,
              metavar="MARGIN", help="Add --batch-size x --jobs deals at a time until the seat verdict is decided: "
              "balanced within +-MARGIN (e.g. 0.025) or unbalanced, by sequential probability ratio tests (5% "
              "error each way); the same bot in every seat.")
@click.option("--max-games", type=_POSITIVE, default=None, metavar="N",
              help="With --until-ci or --until-decided: stop at this many deals even if not done.")
@click.option("--anytime", is_flag=True,
              help="With --until-ci: stop on a 95% confidence sequence valid at every look (empirical Bernstein, "
              "Waudby-Smith and Ramdas 2023; about 1.9x the deals) instead of a fixed-level interval.")
def play(game_name: str, games_: int, seed: int, bots: str, players: int | None, rotate_seats: bool,
         trajectories: bool, batch_size: int, jobs: int, backend: str | None, scheduler: str | None,
         overrides: tuple[str, ...], config_path: str | None, out_dir: str, as_json: bool, progress: bool,
         quiet: bool, until_ci: float | None, until_decided: float | None, max_games: int | None,
         anytime: bool) -> None:
    """Play seeded games into a run directory; print the summary.

    \b
        glade play overgrowth --games 20000 --seed 1 --bots greedy,random --rotate-seats --out runs/demo
        glade play overgrowth --games 5000 --seed 2 --bots racer,blocker --set rules.flowers=20 --out runs/f20
        glade play vora --games 2000 --seed 1 --bots greedy,greedy,greedy --trajectories --out runs/vora-course
        glade play overgrowth --games 4096 --seed 4 --bots greedy,greedy --until-ci 0.01 --max-games 100000 \\
            --jobs 2 --out runs/seats
        glade play overgrowth --games 4096 --seed 4 --bots greedy,random --rotate-seats --until-ci 0.01 \\
            --anytime --out runs/anytime
        glade play overgrowth --games 1000 --seed 4 --bots greedy,greedy --until-decided 0.025 \\
            --max-games 200000 --out runs/decided
        glade play overgrowth --games 200000 --seed 3 --bots random,random --backend dask \\
            --scheduler tcp://10.0.0.5:8786 --out runs/cluster
    """
    from sims.records import load_manifest
    from sims.runner import run
    from sims.runspec import RunSpec

    if until_ci is not None and until_decided is not None:
        raise ConfigError("--until-decided", str(until_decided), "either --until-ci or --until-decided, not both",
                          has_got=False)
    if max_games is not None and until_ci is None and until_decided is None:
        raise ConfigError("--max-games", str(max_games), "--until-ci or --until-decided beside it (it caps them)",
                          has_got=False)
    if anytime and until_ci is None:
        raise ConfigError("--anytime", "true", "--until-ci beside it (it chooses --until-ci's interval)",
                          has_got=False)
    from sims.runner import check_deals

    check_deals("--games", games_)
    if max_games is not None:
        check_deals("--max-games", max_games)
    backend = _backend(backend, scheduler)
    game = _game(game_name)
    labels = _bot_list(bots)
    players = _players(game, players, labels)
    config = _config(game, config_path, overrides)
    until = None
    progress = progress and not quiet
    spec = RunSpec(game.name, config, tuple(labels), players, seed, rotate_seats, trajectories)
    with _interruptible(out_dir):
        if until_ci is None and until_decided is None:
            result = run(spec, games_, out_dir, batch_size=batch_size, jobs=jobs,
                         progress=click_progress if progress else None, backend=backend, scheduler=scheduler,
                         warn=(lambda line: None) if quiet else _warn)
        else:
            from analysis.stopping import play_until

            until = play_until(spec, games_, out_dir, until_ci if until_decided is None else until_decided,
                               max_games=max_games, batch_size=batch_size, jobs=jobs, progress=progress,
                               backend=backend, scheduler=scheduler, anytime=anytime,
                               decide=until_decided is not None)
            result = until.run
    from analysis.summary import format_summary, summarize_run  # after the run: its imports would delay the start

    manifest = load_manifest(out_dir)
    summary = summarize_run(out_dir, players=manifest.get("players"))
    played, seconds, speed = result.played, result.seconds, result.games_per_second
    if until is not None:
        played, seconds, speed = until.played, until.seconds, until.games_per_second
    if as_json:
        data = summary.to_dict()
        data.update(out_dir=str(result.out_dir), played=played, seconds=seconds, games_per_second=speed,
                    config_hash=config.loaded.hash, rotations=result.rotations,
                    rotations_collapsed=manifest.get("rotations_collapsed"), stopping=manifest.get("stopping"))
        if until is not None:
            data["until_ci" if until_decided is None else "until_decided"] = {
                "target": until.target, "half_width": until.half_width, "reached": until.reached,
                "deals": until.deals, "max_games": until.max_games, "steps": until.steps,
                "rule": until.stopping["rule"], "decision": until.decision}
        click.echo(json.dumps(data, indent=2))
        return
    rotation = f", seats rotated ({result.rotations} lineups a deal)" if rotate_seats else ""
    if manifest.get("rotations_collapsed"):
        rotation = ", one lineup a deal (same bot in every seat)"
    title = (f"{game.name}: bots {','.join(labels)}, seed {seed}, {result.deals:,} deals{rotation}; "
             f"config {config.loaded.hash}; {result.out_dir}")
    click.echo(format_summary(summary, title, speed, seconds, played, manifest))


# ---------------------------------------------------------------- ladder


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--players", type=int, default=None, help="Players (default: the game's smallest multiplayer count).")
@click.option("--games", "games_", type=_POSITIVE, required=True, help="Deals per pair (each played in every rotation).")
@click.option("--seed", type=int, required=True, help="Root seed (the same deals for every pair).")
@click.option("--bots", default=None, help="The ladder, weakest first (default: random,greedy,planner,strong).")
@click.option("--out", "out_dir", required=True, metavar="DIR", help="Ladder directory (resumed if it exists).")
@click.option("--jobs", type=_POSITIVE, default=1, show_default=True, help="Worker processes.")
@click.option("--batch-size", type=_POSITIVE, default=512, show_default=True, help="Most games a chunk.")
@click.option("--save", is_flag=True, help="Store the result in the ladder file, replacing this game and count.")
@click.option("--ladder", "ladder_file", default=None, metavar="PATH",
              help="Ladder file for --save (default: configs/ladder.toml).")
@click.option("--note", default="", help="With --save: a note stored with the entry.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a config key, e.g. --set bots.greedy.flowers=1 (repeatable; not with --save).")
@click.option("--json", "as_json", is_flag=True, help="Print the pairs and ratings as JSON.")
@_progress_options
def ladder(game_name: str, players: int | None, games_: int, seed: int, bots: str | None, out_dir: str, jobs: int,
           batch_size: int, save: bool, ladder_file: str | None, note: str, overrides: tuple[str, ...],
           as_json: bool, progress: bool, quiet: bool) -> None:
    """Play the skill ladder (each bot against the next one up, seats split and rotated on the same deals);
    print each pair's share and each bot's rating.

    \b
        glade ladder overgrowth --players 2 --games 1000 --seed 1 --out runs/ladder-og2
        glade ladder vora --players 3 --games 200 --seed 1 --out runs/ladder-vora3 --save
        glade ladder vorex --games 100 --seed 1 --bots greedy,planner --out runs/ladder-vx --json
        glade ladder vorex --games 200 --seed 11 --bots greedy_v1,greedy --set bots.greedy.flowers=1 \\
            --out runs/vorex-flowers-1
    """
    from analysis.ladder import LADDER, play_ladder, read_ladder, save_ladder

    if save and overrides:
        raise ConfigError("--save", "true", "no --set beside it (the ladder file rates the shipped configs)",
                          has_got=False)
    if save:
        read_ladder(Path(ladder_file) if ladder_file else None)  # a malformed file is refused before playing
    game = _game(game_name)
    labels = _bot_list(bots) or list(LADDER)
    players = _players(game, players, None)
    show = click_progress if progress and not quiet else None
    with _interruptible(out_dir):
        result = play_ladder(game.name, players, games_, seed, out_dir, labels, jobs=jobs, batch_size=batch_size,
                             progress=show, overrides=overrides, warn=(lambda line: None) if quiet else _warn)
    if save:
        command = (f"glade ladder {game.name} --players {players} --games {games_} --seed {seed}"
                   + ("" if bots is None else f" --bots {','.join(labels)}") + " --out DIR --save")
        saved = save_ladder(result, seed, command, Path(ladder_file) if ladder_file else None, note)
        if not as_json:
            click.echo(f"saved to {saved}")
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.describe())


# ---------------------------------------------------------------- train


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--players", type=int, default=None, help="Players (default: the game's smallest multiplayer count).")
@click.option("--games", "games_", type=_POSITIVE, required=True, help="Deals the policy plays for the records.")
@click.option("--seed", type=int, required=True, help="Root seed of the records' deals (the check plays later ones).")
@click.option("--out", "out_file", required=True, metavar="FILE",
              help="Learned file to write, e.g. configs/learned/vora-2p.toml (only when the check is passed).")
@click.option("--policy", default="greedy", show_default=True,
              help="The bot that plays the records and that the fit must beat (learned: the next generation).")
@click.option("--phases", type=click.IntRange(1, 8), default=2, show_default=True,
              help="Weight sets, each from a turn (the sampled decisions' turn quantiles).")
@click.option("--target", type=click.Choice(["margin", "share"]), default="margin", show_default=True,
              help="The outcome fitted: final score minus the opponents' mean, or the pairwise rank share.")
@click.option("--sample", type=click.FloatRange(0, 1, min_open=True), default=0.05, show_default=True,
              help="Chance that a decision is sampled.")
@click.option("--check", "check_games", type=click.IntRange(min=0), default=200, show_default=True,
              help="Fresh deals the fitted weights play against the policy (0: no check, always write).")
@click.option("--batch-size", type=_POSITIVE, default=512, show_default=True, help="Most games a batch.")
@click.option("--json", "as_json", is_flag=True, help="Print the fit as JSON.")
@_progress_options
def train(game_name: str, players: int | None, games_: int, seed: int, out_file: str, policy: str, phases: int,
          target: str, sample: float, check_games: int, batch_size: int, as_json: bool, progress: bool,
          quiet: bool) -> None:
    """Fit the greedy's weights to game outcomes, one set per phase of the game, and write them for the
    learned bots (learned, learned_planner; docs/bots.md).

    The policy plays the records; at sampled decisions its best candidates
    (and two others) are each played on to the end; the outcome is fitted
    on the greedy's terms within each decision. The file is written only
    when the fitted weights beat the policy on fresh deals (95% interval
    above 50%).

    \b
        glade train vora --players 2 --games 8000 --seed 5 --out configs/learned/vora-2p.toml
        glade train vora --players 2 --games 8000 --seed 6 --policy learned --out configs/learned/vora-2p.toml
        glade train overgrowth --games 3000 --seed 5 --phases 3 --out runs/og-2p.toml --json
    """
    from analysis.learn import train as run_training
    from sims.outdir import check_file
    from sims.runner import check_deals, check_seed

    game = _game(game_name)
    players = _players(game, players, None)
    check_seed(seed)
    check_deals("--games", games_)
    check_file(out_file, "train")
    done = [0]

    def step(deals: int) -> None:
        done[0] += deals
        if progress and not quiet:
            click.echo(f"train: {done[0]:,} of {games_:,} deals played", err=True)

    command = (f"glade train {game.name} --players {players} --games {games_} --seed {seed} --out {out_file}"
               + (f" --policy {policy}" if policy != "greedy" else "") + (f" --phases {phases}" if phases != 2 else "")
               + (f" --target {target}" if target != "margin" else "")
               + (f" --sample {sample:g}" if sample != 0.05 else "")
               + (f" --check {check_games}" if check_games != 200 else ""))
    result = run_training(game.name, players, games_, seed, out_file, policy=policy, phases=phases, target=target,
                          sample=sample, check_games=check_games, batch_size=batch_size, command=command,
                          progress=step)
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.describe())


# ---------------------------------------------------------------- sweep


@main.command()
@click.argument("sweep_file", metavar="FILE")
@click.option("--out", "out_dir", required=True, metavar="DIR", help="Sweep directory (resumed if it exists).")
@click.option("--jobs", type=_POSITIVE, default=1, show_default=True, help="Worker processes.")
@click.option("--games-per-cell", type=_POSITIVE, default=None, metavar="N",
              help="Deals per cell (default: the file's games_per_cell); more extends every cell.")
@click.option("--batch-size", type=_POSITIVE, default=4096, show_default=True, help="Most games a chunk.")
@_backend_options
@_progress_options
@click.option("--json", "as_json", is_flag=True, help="Print the cells and speed as JSON.")
def sweep(sweep_file: str, out_dir: str, jobs: int, games_per_cell: int | None, batch_size: int,
          backend: str | None, scheduler: str | None, progress: bool, quiet: bool, as_json: bool) -> None:
    """Play every cell of a sweep file (resumable); print a table of the cells.

    Every cell plays the same deals (the same game seeds): cells differ only
    by their config. See configs/sweeps/ for ready-made studies and the file
    format in README.md.

    \b
        glade sweep configs/sweeps/overgrowth-board-track.toml --out runs/og-board-track --jobs 2
        glade sweep configs/sweeps/overgrowth-board-track.toml --out runs/og-board-track --games-per-cell 60000
        glade sweep configs/sweeps/overgrowth-board-track.toml --out runs/og-board-track --json --no-progress
    """
    from analysis.sweep import cell_table, format_cell_table, load_sweep, run_sweep

    backend = _backend(backend, scheduler)
    with _interruptible(out_dir):
        result = run_sweep(sweep_file, out_dir, jobs=jobs, games_per_cell=games_per_cell, batch_size=batch_size,
                           progress=progress and not quiet, backend=backend, scheduler=scheduler,
                           warn=(lambda line: None) if quiet else _warn)
    spec = result.sweep
    if as_json:
        click.echo(json.dumps(_sweep_dict(result, load_sweep(out_dir), cell_table), indent=2))
        return
    rotation = ", seats rotated" if spec.rotate_seats else ""
    click.echo(f"{spec.game}: {spec.description or spec.path.name}")
    click.echo(f"bots {','.join(spec.bots)}, seed {spec.seed}, {len(spec.cells)} cells x "
               f"{result.games_per_cell:,} deals{rotation}, the same deals in every cell; {result.out_dir}")
    data = load_sweep(out_dir)
    click.echo(format_cell_table(cell_table(data)))
    collapsed = [c.id for c in data.cells if c.status != "pending" and c.manifest().get("rotations_collapsed")]
    if collapsed:
        click.echo(f"note: {len(collapsed)} cell{'s' if len(collapsed) > 1 else ''} with the same bot in every seat "
                   f"played one rotation (rotations would replay identical games): {', '.join(collapsed)}")
    if result.played:
        click.echo(f"speed  {result.played:,} games in {result.seconds:.1f} s: "
                   f"{result.games_per_second:,.0f} games/s")
    else:
        click.echo("speed  nothing new to play: every game was already on disk")


# ---------------------------------------------------------------- tune


@main.command()
@click.argument("study", metavar="GAME|FILE")
@click.option("--bots", default=None, help="Comma-separated bots, one per player (or one for every seat).")
@click.option("--players", type=int, default=None, help="Players (default: the number of bots).")
@click.option("--param", "params", multiple=True, metavar="KEY=LO..HI[:STEP]|KEY=a|b|c",
              help="A config key to search: an integer or real range, or named choices (repeatable).")
@click.option("--target", default=None, help="What to reach: seat-balance (the default) or bot-share.")
@click.option("--challenger", default=None, help="bot-share: the bot or persona whose weights are searched.")
@click.option("--baseline", default=None, help="bot-share: the bot or persona it plays against.")
@click.option("--delta", type=float, default=None, help="Balanced within +-delta of the fair share (default 0.025); "
              "bot-share: the share gap the search is tuned to tell apart (default 0.05).")
@click.option("--turns", default=None, metavar="LO..HI",
              help="Also keep the game length in this band (--turns-share of the games inside it).")
@click.option("--turns-share", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None, metavar="SHARE",
              help="The share of games the --turns band must hold (default 0.75).")
@click.option("--max-stalls", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None,
              metavar="SHARE",
              help="The largest share of games that may stall or end blocked (default 0.01): the search drops "
              "candidates shown above it, the verdict is never balanced unless the confirmation shows it below.")
@click.option("--mean", "means", multiple=True, metavar="COLUMN=LO..HI",
              help="Also keep a records column's mean in this range (checked on the confirmation run).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a config key in every candidate (repeatable).")
@click.option("--seed", type=int, default=None, help="Root seed of the search.")
@click.option("--out", "out_dir", required=True, metavar="DIR", help="Tune directory (resumed if it exists).")
@click.option("--budget", type=_POSITIVE, default=None, metavar="GAMES",
              help="Games the search may spend (default 60,000).")
@click.option("--confirm", type=click.IntRange(min=2), default=None, metavar="DEALS",
              help="Deals of the confirmation run on new deals (default 4,000).")
@click.option("--start", type=click.IntRange(min=2), default=None, metavar="DEALS",
              help="Deals of a candidate's first look (default 256); each round doubles it.")
@click.option("--jobs", type=_POSITIVE, default=1, show_default=True, help="Worker processes.")
@click.option("--batch-size", type=_POSITIVE, default=4096, show_default=True, help="Most games a chunk.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--progress/--no-progress", default=True, help="Print each look of the search on stderr.")
def tune(study: str, bots: str | None, players: int | None, params: tuple[str, ...], target: str | None,
         challenger: str | None, baseline: str | None, delta: float | None, turns: str | None,
         turns_share: float | None, max_stalls: float | None, means: tuple[str, ...], overrides: tuple[str, ...],
         seed: int | None, out_dir: str, budget: int | None, confirm: int | None, start: int | None, jobs: int,
         batch_size: int, as_json: bool, progress: bool) -> None:
    """Search config keys for a setting whose seats are balanced (or bot weights that win); confirm on new deals.

    Every candidate plays the same deals; one numeric range is bracketed by
    bisection, several keys are raced; candidates clearly worse than another
    are dropped by anytime-valid confidence sequences (docs/tune.md). The
    chosen setting is then played on new deals and judged by an equivalence
    test (balanced within --delta); "balanced" also needs at most --max-stalls
    of the games stalled or blocked and, with --turns, --turns-share of them
    inside the band, each shown on the new deals. GAME|FILE is a game or a tune file
    (configs/tune/); options given here override the file's. With --target
    bot-share the candidates set the --challenger's weights, which plays the
    --baseline on rotated seats; the best share is confirmed on new deals.

    \b
        glade tune overgrowth --bots greedy,greedy --param rules.flowers=15..45:5 --seed 7 --out runs/tune-flowers
        glade tune configs/tune/overgrowth-board-flowers.toml --out runs/tune-og --jobs 2 --json
        glade tune configs/tune/overgrowth-head-start-flowers.toml --max-stalls 0.02 --out runs/t --jobs 2
        glade tune vora --bots greedy --players 3 --param "kinds[0].count=10|12|14" --turns 20..60 --seed 1 \\
            --out runs/tune-vora
        glade tune vorex --target bot-share --challenger greedy --baseline greedy_v1 \\
            --param "bots.greedy.production=0.0|0.5|1.0" --seed 11 --budget 3000 --confirm 300 --out runs/vxw
        glade report runs/tune-flowers
    """
    from analysis.tune import format_tune, make_study, parse_band, parse_mean, parse_param, read_tune_file, \
        run_tune, tune_json

    settings: dict[str, Any] = {}
    if study.endswith(".toml") or Path(study).is_file():
        settings = read_tune_file(study)
    else:
        settings["game"] = study
    given = {"players": players, "target": target, "challenger": challenger, "baseline": baseline, "delta": delta,
             "seed": seed, "budget": budget, "confirm": confirm, "start": start, "turns_share": turns_share,
             "max_stalls": max_stalls}
    settings.update({k: v for k, v in given.items() if v is not None})
    if bots is not None:
        settings["bots"] = _bot_list(bots)
    if params:
        settings["params"] = tuple(parse_param(p) for p in params)
    if turns is not None:
        settings["turns"] = parse_band(turns, "--turns", turns)
    if means:
        settings["means"] = tuple(parse_mean(m) for m in means)
    if overrides:
        settings["base"] = tuple(settings.get("base", ())) + overrides
    spec = make_study(settings.pop("game"), settings.pop("bots", None), settings.pop("players", None),
                      settings.pop("params", ()), settings.pop("seed", None), **settings)
    echo = (lambda line: click.echo(line, err=True)) if progress else None
    with _interruptible(out_dir):
        result = run_tune(spec, out_dir, jobs=jobs, batch_size=batch_size, progress=echo)
    if as_json:
        click.echo(json.dumps({**tune_json(result.data), "out_dir": str(result.out_dir), "played": result.played,
                               "seconds": result.seconds}, indent=2))
        return
    title = spec.description or spec.title
    click.echo(f"{spec.game}: {title}; bots {','.join(spec.bots)}, seed {spec.seed}; {result.out_dir}")
    click.echo(format_tune(result.data, result.seconds))


# ---------------------------------------------------------------- ablate


@main.command()
@click.argument("game_name", metavar="GAME|STUDY.toml")
@click.option("--item", "items", multiple=True, metavar="KEY=VALUE|KEY+=N|KEY-=N",
              help="One ablation: a --set expression, or += / -= on a numeric key (repeatable).")
@click.option("--remove", "removed", multiple=True, metavar="NAME",
              help="One ablation: the named item's count set to 0 (species, kinds; repeatable).")
@click.option("--swap", "swapped", multiple=True, metavar="NAME=VANILLA",
              help="One ablation: the named item replaced by copies of a plain one of its list (repeatable).")
@click.option("--bots", default=None, help="Comma-separated bots, one per player (or one for every seat).")
@click.option("--players", type=int, default=None, help="Players (default: the number of bots).")
@click.option("--games", type=_POSITIVE, default=2000, show_default=True, help="Deals per run.")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed (the same deals in every run).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a config key in the baseline and every ablation (repeatable).")
@click.option("--rotate-seats", is_flag=True, help="Play each deal once per seat rotation.")
@click.option("--out", "out_dir", required=True, metavar="DIR", help="Ablation directory (resumed if it exists).")
@click.option("--jobs", type=_POSITIVE, default=1, show_default=True, help="Worker processes.")
@click.option("--batch-size", type=_POSITIVE, default=4096, show_default=True, help="Most games a chunk.")
@click.option("--json", "as_json", is_flag=True, help="Print the paired changes as JSON.")
@click.option("--placebo/--no-placebo", default=None,
              help="Also play the baseline with the bots' tie-breaks redrawn (a change that should change nothing): "
              "the verdict reads each item against its drift (default: on; a study file's placebo key).")
@_progress_options
def ablate(game_name: str, items: tuple[str, ...], removed: tuple[str, ...], swapped: tuple[str, ...],
           bots: str | None, players: int | None, games: int, seed: int, overrides: tuple[str, ...],
           rotate_seats: bool, out_dir: str, jobs: int, batch_size: int, as_json: bool, placebo: bool | None,
           progress: bool, quiet: bool) -> None:
    """Play the same deals with one item changed, and report whether the item does what the content tables say.

    Each --item is one ablation, played beside the baseline on the same deals
    (common random numbers), and a placebo run (the baseline with every bot's
    tie-breaks redrawn) beside them. First the verdict per named item:
    confirmed / not confirmed / undecided, from the change of its users' share
    beyond the placebo's drift, with its interval, and the item's use rate
    before and after; then per ablation and seat the paired change of the
    seat's share (the headline's) and mean score, and of game length, with
    intervals by deal and Holm across ablations (docs/ablate.md). Run it again
    to resume. A study file (configs/ablate/*.toml) holds the game, bots, deals
    and ablations instead.

    \b
        glade ablate reforest --bots greedy --players 3 --games 2000 --seed 1 --out runs/ablate-fir \\
            --item "species[Douglas Fir].count=0" --item "species[Douglas Fir].cost+=1" --set "deck.size[3]=87"
        glade ablate reforest --bots greedy --players 2 --remove "Douglas Fir" --out runs/no-fir
        glade ablate reforest --bots greedy --players 2 --swap "Douglas Fir=Bunchberry" --out runs/plain-fir
        glade ablate vora --bots greedy --players 3 --item "kinds[0].count-=2" --out runs/ablate-vora --json
        glade ablate configs/ablate/reforest-douglas-fir.toml --out runs/reforest-douglas-fir --jobs 2
        glade ablate vora --bots greedy --players 3 --item "kinds[0].count-=2" --no-placebo --out runs/vora-quick
        glade report runs/ablate-fir
    """
    from analysis.ablate import ablate_json, analyse_ablate, format_ablate, read_study, run_ablate

    if game_name.endswith(".toml"):
        study = read_study(game_name)
        game, labels, count, seed, games = _game(study.game), list(study.bots), study.players, study.seed, study.games
        items, removed, overrides, rotate_seats = study.items, study.remove, study.base, study.rotate_seats
        swapped = study.swap
        placebo = study.placebo if placebo is None else placebo
    else:
        if bots is None:
            raise ConfigError("--bots", "(none)", "comma-separated bots (or a study file as GAME)", has_got=False)
        game = _game(game_name)
        labels = _bot_list(bots)
        count = _players(game, players, labels)
    with _interruptible(out_dir):
        run_ablate(game.name, labels, count, seed, games, out_dir, items, overrides, rotate_seats, jobs, batch_size,
                   progress and not quiet, removed, swapped, placebo is not False,
                   warn=(lambda line: None) if quiet else _warn)
    result = analyse_ablate(out_dir)
    click.echo(json.dumps(ablate_json(result), indent=2) if as_json else format_ablate(result))


def _sweep_dict(result: Any, data: Any, cell_table: Any) -> dict[str, Any]:
    """What ``glade sweep --json`` prints: the sweep, each cell's figures (``cell_table``'s columns), the speed."""
    spec = result.sweep
    collapsed = {c.id for c in data.cells if c.status != "pending" and c.manifest().get("rotations_collapsed")}
    cells = cell_table(data).to_dicts()
    for cell in cells:
        cell["rotations_collapsed"] = cell["cell"] in collapsed
    return {"game": spec.game, "description": spec.description, "file": str(spec.path), "bots": list(spec.bots),
            "seed": spec.seed, "rotate_seats": spec.rotate_seats, "games_per_cell": result.games_per_cell,
            "out_dir": str(result.out_dir), "cells": cells, "played": result.played, "seconds": result.seconds,
            "games_per_second": result.games_per_second}


# ---------------------------------------------------------------- verify


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--games", "games_", type=_POSITIVE, default=2000, show_default=True)
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=3, show_default=True)
@click.option("--players", type=int, default=None, help="Players (default: the game's smallest count).")
@click.option("--bots", default=None, help="One lineup to check (default: every mix of random and greedy).")
@click.option("--batch-size", type=_POSITIVE, default=500, show_default=True)
@click.option("--jobs", type=_POSITIVE, default=1, show_default=True, help="Worker processes checking chunks.")
@_config_options
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON (exit status 1 still on a mismatch).")
def verify(game_name: str, games_: int, seed: int, players: int | None, bots: str | None, batch_size: int,
           jobs: int, overrides: tuple[str, ...], config_path: str | None, as_json: bool) -> None:
    """Check the batched engine against the reference engine.

    Plays games batched, replays each on the reference engine and compares
    legal moves, results and final positions. Exit status 1 if any differ.

    \b
        glade verify overgrowth --games 2000 --seed 3
        glade verify overgrowth --games 500 --set rules.orthogonal_connection=true
        glade verify vorex --players 4 --games 1000 --jobs 2
        glade verify reforest --games 200 --json
    """
    from sims.verify import verify as run_verify

    game = _game(game_name)
    labels = _bot_list(bots)
    players = _players(game, players, labels)
    config = _config(game, config_path, overrides)
    report = run_verify(game.name, config, players, games_, seed, labels, batch_size=batch_size, jobs=jobs)
    if as_json:
        from dataclasses import asdict

        click.echo(json.dumps({**asdict(report), "ok": report.ok, "seed": seed, "config_hash": config.loaded.hash},
                              indent=2))
    else:
        click.echo(report.format())
    if not report.ok:
        sys.exit(1)


# ---------------------------------------------------------------- bench


@main.command()
@click.argument("game_name", metavar="[GAME]", required=False)
@click.option("--all", "every_game", is_flag=True, help="Every game at every player count, in one run.")
@click.option("--players", type=int, default=None, help="Players (default: the game's smallest count).")
@click.option("--batch-size", type=_POSITIVE, default=1024, show_default=True,
              help="Batched games a run of the random and greedy bots.")
@click.option("--planner-batch-size", type=_POSITIVE, default=32, show_default=True,
              help="Batched games a run of the planner.")
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=1.5, show_default=True,
              help="CPU seconds each figure's timed runs may take (a slow bot plays a smaller batch, the "
                   "reference stops inside a game); ignored with --repeats.")
@click.option("--repeats", type=_POSITIVE, default=None,
              help="Instead of the budget: the median of exactly this many runs of the whole batch and of "
                   "whole reference games.")
@click.option("--reference-games", type=_POSITIVE, default=2, show_default=True,
              help="Reference games a run (the first deals of the batch).")
@click.option("--seed", type=int, default=0, show_default=True)
@_config_options
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bench(game_name: str | None, every_game: bool, players: int | None, batch_size: int, planner_batch_size: int,
          budget: float, repeats: int | None, reference_games: int, seed: int, overrides: tuple[str, ...],
          config_path: str | None, as_json: bool) -> None:
    """Games and decisions per second of both engines, random, greedy and planner bots, in CPU time.

    The first call of each bot (imports, compiling numba kernels) is timed
    apart (wall time) as compile_seconds; every figure after it is CPU time
    within a budget per figure (or the median of --repeats runs). Run it on
    one thread (OMP_NUM_THREADS=1 ..., as make bench does).

    \b
        glade bench overgrowth --json
        glade bench vora --players 3 --batch-size 4096 --budget 5 --reference-games 20
        glade bench vorex --players 3 --repeats 3        # whole batches and whole reference games
        glade bench --all --json          # every game and player count, for tracking speed over time
    """
    from sims.bench import bench as run_bench
    from sims.bench import bench_all, format_bench

    if every_game == (game_name is not None):
        raise ConfigError("glade bench", "GAME", "a game name or --all (one of the two)", has_got=False)
    sizes = dict(batch_size=batch_size, repeats=repeats, reference_games=reference_games, seed=seed,
                 planner_batch_size=planner_batch_size, budget=budget)
    if every_game:
        result = bench_all(**sizes)
        click.echo(json.dumps(result, indent=2) if as_json else "\n".join(map(format_bench, result["runs"]))
                   + f"\n{result['seconds']:.0f} s wall in all")
        return
    game = _game(game_name)
    players = _players(game, players, None)
    config = _config(game, config_path, overrides)
    result = run_bench(game.name, config, players, **sizes)
    click.echo(json.dumps(result, indent=2) if as_json else format_bench(result))


# ---------------------------------------------------------------- warm


@main.command()
@click.argument("game_names", metavar="[GAME]...", nargs=-1)
@click.option("--jobs", type=_POSITIVE, default=1, show_default=True,
              help="Games compiled at once, each in a process of its own.")
def warm(game_names: tuple[str, ...], jobs: int) -> None:
    """Compile the numba kernels of the games (default: every game) into numba's cache on disk.

    Plays two deals of every bot (random, greedy, planner, strong) at every
    player count, so that later runs, their --jobs workers and the test
    suite load the kernels instead of compiling them (a game's first run on
    a machine compiles for tens of seconds; make setup runs this). A game
    already compiled takes a second; a kernel source changed since is
    compiled again.

    \b
        glade warm                   # every game
        glade warm --jobs 2          # two games at a time
        glade warm vorex reforest
    """
    from sims.core.compiling import warm_games

    for warmed in warm_games(game_names, jobs):
        if warmed.cache is None:
            click.echo(f"{warmed.game}: no compiled kernels")
            continue
        counts = sorted({int(group.split("/")[1]) for group in warmed.groups})
        counts = f"{counts[0]}-{counts[-1]}" if len(counts) > 1 else f"{counts[0]}"
        bots = ", ".join(dict.fromkeys(group.split("/")[0] for group in warmed.groups))
        done = (f"compiled {warmed.compiled} kernels in {warmed.seconds:.0f} CPU s" if warmed.compiled else
                f"already compiled ({warmed.seconds:.1f} CPU s to check)")
        click.echo(f"{warmed.game}: {done}: {bots} at {counts} players; cache {warmed.cache}")


# ---------------------------------------------------------------- replay


@main.command()
@click.argument("target", metavar="RUN_DIR|GAME")
@click.option("--game", "game_id", type=click.IntRange(min=0), required=True,
              help="The records' game id (deal x rotations + rotation).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="With GAME: root seed of the run.")
@click.option("--bots", default=None, help="With GAME: comma-separated bots, one per seat (or one for every seat).")
@click.option("--players", type=int, default=None, help="With GAME: players.")
@click.option("--rotate-seats", is_flag=True, help="With GAME: number games as glade play --rotate-seats does.")
@click.option("--board", type=click.Choice(["compact", "full"]), default="compact", show_default=True,
              help="A few lines a position, or the game's whole board.")
@click.option("--explain", is_flag=True, help="Before each decision, the bot's top 5 candidates and their scores.")
@_config_options
def replay(target: str, game_id: int, seed: int | None, bots: str | None, players: int | None, rotate_seats: bool,
           board: str, explain: bool, overrides: tuple[str, ...], config_path: str | None) -> None:
    """Show one game of a run turn by turn, with every seat's running score.

    Given a run directory, the game, config, bots, players, seed and seat
    rotations come from its manifest: the game shown is the one its records
    hold. Given a game name instead, pass the options glade play was given.
    The batched engine plays the game exactly as glade play did; its actions
    are then stepped through the reference engine, which draws each position.
    With --explain, each decision is preceded by the bot's best candidates
    (up to 5), best first, with the scores its reference implementation
    gives them; the first is the action played.

    \b
        glade replay runs/demo --game 12
        glade replay runs/demo --game 12 --explain --board full
        glade replay overgrowth --seed 1 --game 12 --bots greedy,random --rotate-seats
    """
    from sims.replay import replay_text, run_replay

    if (Path(target) / "manifest.json").exists():
        given = [name for name, value in (("--seed", seed), ("--bots", bots), ("--players", players),
                                          ("--rotate-seats", rotate_seats or None), ("--set", overrides or None),
                                          ("--config", config_path)) if value is not None]
        if given:
            raise ConfigError(given[0], "(option)", f"no {given[0]} with a run directory (its manifest says how "
                              "the run was played)", has_got=False)
        click.echo(run_replay(target, game_id, board=board, explain=explain))
        return
    if seed is None:
        raise ConfigError("glade replay", target, "a run directory (holding manifest.json), or a game name "
                          "with --seed", has_got=False)
    game = _game(target)
    labels = _bot_list(bots)
    players = _players(game, players, labels)
    labels = labels or [next(iter(game.bots))] * game.seats(players)
    config = _config(game, config_path, overrides)
    click.echo(replay_text(game.name, config, players, seed, game_id, labels, rotate_seats, scores=True, board=board,
                           explain=explain))


# ---------------------------------------------------------------- plan


_SHARE = click.FloatRange(0, 1, min_open=True, max_open=True)


@main.command()
@click.option("--delta", type=_SHARE, required=True, help="Win-rate gap to detect, as a share (0.02 = 2 points).")
@click.option("--power", type=_SHARE, default=0.8, show_default=True, help="Chance of detecting the gap.")
@click.option("--alpha", type=_SHARE, default=0.05, show_default=True, help="Two-sided significance level.")
@click.option("--base", type=_SHARE, default=0.5, show_default=True,
              help="The rate the gap is measured from (0.5: a seat of 2; 0.25: a seat of 4).")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def plan(delta: float, power: float, alpha: float, base: float, as_json: bool) -> None:
    """How many games detect a win-rate gap (Cohen's h, normal power of a proportion test).

    \b
        glade plan --delta 0.02
        glade plan --delta 0.01 --power 0.9 --base 0.25
        glade plan --delta 0.02 --json
    """
    from analysis.stats import StatsError, cohens_h, games_needed

    try:
        one_run = games_needed(delta, power, alpha, base)
        per_arm = games_needed(delta, power, alpha, base, arms=2)
    except StatsError as error:
        raise ConfigError("glade plan", "options", str(error).removeprefix("expected "), has_got=False) from None
    if as_json:
        click.echo(json.dumps({"delta": delta, "power": power, "alpha": alpha, "base": base,
                               "cohens_h": cohens_h(delta, base), "games_one_run": one_run,
                               "games_per_arm": per_arm}, indent=2))
        return
    click.echo(f"detecting {100 * (base + delta):.1f}% vs {100 * base:.1f}% (two-sided alpha {alpha:g}, "
               f"power {power:.2f}, Cohen's h {cohens_h(delta, base):.3f}): {one_run:,} games against a known "
               f"{100 * base:.1f}%, {per_arm:,} games per arm to compare two runs")


# ---------------------------------------------------------------- columns and export


@main.command()
@click.argument("game_name", metavar="[GAME]", required=False)
@click.option("--all", "every_game", is_flag=True, help="Every game.")
@click.option("--json", "as_json", is_flag=True, help="Print the columns as JSON.")
@click.option("--markdown", is_flag=True, help="Print docs/columns.md (with --all).")
@_config_options
def columns(game_name: str | None, every_game: bool, as_json: bool, markdown: bool, overrides: tuple[str, ...],
            config_path: str | None) -> None:
    """The data dictionary: every records and events column of a game (type, meaning, unit, codes).

    \b
        glade columns vorex
        glade columns reforest --json
        glade columns --all --markdown > docs/columns.md
    """
    from sims.core.columns import dictionary, format_markdown, format_text
    from sims.registry import game_names

    if every_game == (game_name is not None):
        raise ConfigError("glade columns", "GAME", "a game name or --all (one of the two)", has_got=False)
    names = game_names() if every_game else [_game(game_name).name]
    found = []
    for name in names:
        config = _config(_game(name), config_path, overrides) if not every_game else None
        table = dictionary(name, config)
        if table is None and not every_game:
            raise ConfigError("glade columns", name, "a game with a data dictionary (sims/<game>/columns.py)",
                              has_got=False)
        found += [table] if table is not None else []
    if markdown:
        click.echo(format_markdown(found), nl=False)
    elif as_json:
        data = [table.to_dict() for table in found]
        click.echo(json.dumps(data if every_game else data[0], indent=2))
    else:
        click.echo("\n".join(format_text(table) for table in found), nl=False)


@main.command()
@click.argument("run_dir", metavar="RUN")
@click.option("--csv", "as_csv", is_flag=True, required=True, help="Write CSV (the one format so far).")
@click.option("--events", is_flag=True, help="Export the events table instead of the records.")
@click.option("--out", "out_file", default=None, metavar="FILE",
              help="File to write (default: RUN/records.csv or RUN/events.csv; - for stdout).")
def export(run_dir: str, as_csv: bool, events: bool, out_file: str | None) -> None:
    """Write a run's records (or events) as one CSV file, for spreadsheets.

    Rows are sorted by game and seat. For analysis in Python, read the run
    with sims.records.load_records (a polars DataFrame; .to_pandas() for pandas).

    \b
        glade export runs/demo --csv
        glade export runs/demo --csv --out demo.csv
        glade export runs/demo --csv --events --out - | head
    """
    from sims.core.files import atomic
    from sims.outdir import check_file
    from sims.records import EVENTS, RECORDS, load_events, load_manifest, load_records

    load_manifest(run_dir)
    out = Path(out_file) if out_file else Path(run_dir) / f"{EVENTS if events else RECORDS}.csv"
    if out_file != "-":
        check_file(out, "export")
    frame = load_events(run_dir) if events else load_records(run_dir)
    if frame is None:
        raise ConfigError(str(Path(run_dir) / EVENTS), "(files)", "events chunk files (this game writes none)",
                          has_got=False)
    if out_file == "-":
        click.echo(frame.write_csv(), nl=False)
        return
    with atomic(out) as temporary:
        frame.write_csv(temporary)
    click.echo(f"{out} ({frame.height:,} rows, {frame.width} columns)")


# ---------------------------------------------------------------- report


@main.command()
@click.argument("directory", metavar="[DIR]", required=False)
@click.option("--diff", "diff_runs", nargs=2, metavar="RUN_A RUN_B", default=None,
              help="Compare two run directories (B minus A) instead of reporting on DIR.")
@click.option("--html", "as_html", is_flag=True, help="Write report.html (with neither flag: both).")
@click.option("--pdf", "as_pdf", is_flag=True, help="Write report.pdf (with neither flag: both).")
@click.option("--out", "out_dir", default=None, metavar="DIR",
              help="Folder for report.html and report.pdf (default: reports/NAME, NAME the directory's name).")
@click.option("--delta", type=click.FloatRange(0, 0.5, min_open=True, max_open=True), default=0.025,
              show_default=True, help="Balance margin of the equivalence test, as a share (0.025 = 2.5 points).")
@click.option("--band-share", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.75,
              show_default=True, help="Share of games the config's [report] target_turns band must hold for the "
              "length check to pass (shown by a one-sided test).")
@click.option("--detail-deals", type=_POSITIVE, default=DETAIL_DEALS, show_default=True, metavar="N",
              help="The first N deals of a run (of each sweep cell) feed the detail analyses that need every "
              "game's rows or events (score by source, tempo, drama, skill gradient, content strength); the "
              "headline, seat, bot and length figures read every deal. The report says where it used fewer.")
def report(directory: str | None, diff_runs: tuple[str, str] | None, as_html: bool, as_pdf: bool,
           out_dir: str | None, delta: float, band_share: float, detail_deals: int) -> None:
    """Write the report of a run, a sweep, a tune or a ladder (HTML and PDF), or compare two runs.

    DIR is a run directory (manifest.json, from glade play), a sweep
    directory (sweep.json, from glade sweep), a tune directory (tune.json) or a
    ladder directory (ladder.json, from glade ladder: the pairs' shares and the
    ratings with their intervals). --diff compares two runs: config
    keys that differ, seat win rates, mean scores, turns and end reasons, paired
    deal by deal when both runs played the same seeds. For a run it first prints
    the headline on seat balance, the words of the report's Seats section; for a
    sweep the baseline cell's headline and the table glade sweep prints (seat 0's
    share as each cell's headline counts it).

    \b
        glade report runs/demo
        glade report runs/og-board-track --html --out reports/board-track
        glade report --diff runs/base runs/f20 --out reports/f20-vs-base
        glade report runs/ladder-vora2
        glade report runs/big --detail-deals 200000   # the detail analyses on the first 200,000 deals
    """
    from analysis.report import build_diff_report, build_report, default_out, write_report

    if (directory is None) == (diff_runs is None):
        raise ConfigError("glade report", "DIR", "a run or sweep directory, or --diff RUN_A RUN_B (one of the two)",
                          has_got=False)
    from sims.outdir import check_out

    both = not as_html and not as_pdf
    out = Path(out_dir) if out_dir else default_out(*(diff_runs or (directory,)))
    check_out(out, "report")  # before the report is built: a --out it may not write is refused at once
    if diff_runs is not None:
        built = build_diff_report(*diff_runs, delta)
    else:
        built = build_report(directory, delta, band_share, detail_deals)
    if built.headline:
        click.echo(f"headline: {built.headline}")
    if built.terminal:
        click.echo(built.terminal)
    for path in write_report(built, out, html_file=as_html or both, pdf_file=as_pdf or both):
        click.echo(str(path))
