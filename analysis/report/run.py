"""Run reports: analyse a run directory, then the sections of its report."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis import plots
from analysis import stats
from analysis.report.designer import (DESIGNER_METHODS, DesignerAnalysis, analyse_designer, drama_section,
                                      family_blocks, top_items, why_section)
from analysis.report.methods import _methods_section, _score_note, _versions_now, config_changes, seat_tests, target_band
from analysis.report.model import (Block, Bullets, COMPONENT_COLUMNS, Code, Column, DELTA, DETAIL_DEALS, FLAT_GRADIENT,
                                   Facts, Flag,
                                   Flags, Heading, Paragraph, Plot, Report, STALL_FLAG, Section, Table)
from analysis.report.text import (_ci, _ci_num, _ci_pts, _finite, _game_title, _int, _num, _p, _pct, _plain, _pts,
                                  _versions_text, config_text)
from analysis.run_tally import RunTally, tally_records, tally_run
from analysis.stats.common import columns_of, is_empty
from analysis.summary import seat_headline, solo_headline
from sims.core.spec import ConfigError, default_config_path, project_root
from sims.records import (EVENTS, MANIFEST, deal_ranges, first_deals, load_manifest, load_records, load_trajectories,
                          machine, now, scan_side_table)


_RUN_METHODS = [
    "Seat advantage flag: with 2 players the exact binomial test above (seat 1 is the complement of seat 0 among "
    "decided games: one test, Holm over a family of one); with 3-4 players one exact binomial test per seat "
    "against 1/players (scipy.stats.binomtest, first places rounded to whole games), Holm-corrected across seats "
    "(statsmodels multipletests(method='holm')). Significant: Holm-adjusted p < 0.05.",
    f"Stall flag: more than {STALL_FLAG:.0%} of games stalled (hit the turn cap) or ended blocked (no seat could "
    "move again: ended at once and scored); each rate has a Wilson 95% interval, by deal when a deal is played more "
    "than once (the interval of the per-deal shares; Wilson over the deals when no game, or every game, did) "
    "(analysis.stats.unfinished).",
    "Game-length flag (analysis.stats.band_share): the share of games inside the config's [report] target_turns "
    "band with its interval (Wilson, or by deal), and one-sided tests against the required share (glade report "
    "--band-share, default 75%): exact binomial with one game a deal, else t tests of the per-deal shares. OK only "
    "when more than the required share is shown inside; a warning when fewer is shown; else undecided. The median "
    "is not the test: a median inside the band can sit beside two thirds of the games outside it.",
    "Component flags (observational): dominant = Holm p < 0.05 and at least +10 points win rate when used; unused = "
    "used in under 1% of seat-games (analysis.stats.component_strength, split by bot). Use rates and the win rates "
    "when used and not used are drawn with Wilson 95% intervals.",
    f"Skill-gradient flag: the strongest bot's share of points against the weakest within {FLAT_GRADIENT:.0%} of 50% "
    "(SkillGradient.gradient_too_flat); measured only when seats rotate, so that bots and seats are not confounded.",
    "Convergence figure: the headline's share of seat 0 (analysis.stats.seat_advantage: decided games with 2 "
    "players, first places with 3-4) rerun on the first n deals, n on a geometric grid of at most 24 values, with "
    "the analysis's own interval at each n (the headline's tally as the run is read past each n, "
    "analysis.run_tally); pointwise, so not a sequential test (looking repeatedly is not corrected for). A "
    "solitaire run draws its win rate over the first n games with a pointwise Wilson 95% interval.",
    "Which deals each figure reads: the headline, the seat and bot tables, the seat figures, game length, end "
    "reasons, stalls and blocked games, the target band and the score distributions cover every deal of the run, "
    "read a block of deals at a time into tallies (analysis.run_tally; memory does not grow with the run). The "
    "detail analyses that need each game's rows or its events (score by source, tempo, the score margin, drama and "
    "the course of games, the skill gradient, content strength per item and the component table) read the first "
    f"deals only, at most {DETAIL_DEALS:,} by default (glade report --detail-deals): deals are independent draws, "
    "so the first ones are a random sample of the run's; wherever such a figure appears the report says from "
    "how many of the run's deals.",
    *DESIGNER_METHODS,
]


@dataclass(frozen=True, eq=False)
class RunAnalysis:
    """Every number a run report shows, computed once."""

    path: Path
    manifest: dict
    records: pl.DataFrame  # the detail deals' records (every deal when the run holds no more than the detail)
    events: pl.DataFrame | pl.LazyFrame | None  # the detail deals' events (lazy for a run directory)
    delta: float
    players: int
    bots: tuple[str, ...]
    rotated: bool
    target: tuple[float, float] | None
    advantage: stats.SeatAdvantage | None  # None for solitaire runs (one seat: nothing to compare)
    tests: pl.DataFrame
    by_seat: pl.DataFrame
    by_bot: pl.DataFrame
    length: stats.GameLength
    margin: stats.Margin
    band: stats.BandShare | None  # the share of games inside the target band, against the required share
    unfinished: stats.Unfinished  # stalls and blocked games
    gradient: stats.SkillGradient | None
    gradient_error: str | None
    component: str | None
    components: pl.DataFrame | None
    designer: DesignerAnalysis
    tally: RunTally  # every deal's tallies: the headline, the tables, length, the seat figures
    detail: Detail  # the deals the detail analyses read

    @property
    def games(self) -> int:
        return self.length.games


@dataclass(frozen=True)
class Detail:
    """The deals the detail analyses read: the first ``deals`` of the run's ``of``."""

    deals: int
    of: int

    @property
    def whole(self) -> bool:
        return self.deals >= self.of

    def text(self, lead: str = "from ") -> str:
        """``from the first 200,000 of 1,000,000 deals`` ("" when every deal is read)."""
        return "" if self.whole else f"{lead}the first {self.deals:,} of {self.of:,} deals"

    def note(self) -> Paragraph | None:
        """A note saying so, for a section whose figures read only the detail deals."""
        if self.whole:
            return None
        return Paragraph(f"The figures of this section are {self.text()} (deals are independent draws, so the first "
                         "ones are a random sample of the run's; glade report --detail-deals sets how many). Every "
                         "other section covers all deals.", "note")


def component_column(events: pl.DataFrame | pl.LazyFrame | None) -> str | None:
    """The events column naming a component (card, action kind...), if the game records one."""
    if events is None:
        return None
    return next((c for c in COMPONENT_COLUMNS if c in columns_of(events)), None)


def design_components(game_name: str | None,
                      events: pl.DataFrame | pl.LazyFrame | None) -> tuple[str | None, tuple | None]:
    """The events column and values a game declares as its design components, else a guess by column name."""
    from sims.registry import get_game

    try:
        declared = get_game(game_name).components if game_name else None
    except ConfigError:
        declared = None
    if declared is not None and events is not None and declared[0] in columns_of(events):
        return declared
    return component_column(events), None


def analyse_run(path: str | Path, delta: float = DELTA, band_share: float = stats.BAND_SHARE,
                detail_deals: int = DETAIL_DEALS) -> RunAnalysis:
    """Every number of a run's report. The run is read once a block of deals at a time into the tallies of every
    full-run figure (:func:`analysis.run_tally.tally_run`); the detail analyses read the first ``detail_deals``
    deals (their events a block of games at a time), so memory does not grow with the run."""
    path = Path(path)
    manifest = load_manifest(path)
    try:
        tally = tally_run(path, int(manifest["players"]), target_band(manifest.get("config") or {}), delta)
        below = first_deals(deal_ranges(path), detail_deals)
        detail = Detail(min(detail_deals, tally.deals), tally.deals)
        return _analyse(path, manifest, load_records(path, below), scan_side_table(path, EVENTS, below), delta,
                        load_trajectories(path, below), band_share, tally, detail)
    except stats.StatsError as error:
        raise ConfigError(str(path), "(records)", f"records a report can use ({error})", has_got=False) from None


def player_seats(manifest: dict, records: pl.DataFrame, events: pl.DataFrame | pl.LazyFrame | None = None
                 ) -> tuple[int, pl.DataFrame, pl.DataFrame | pl.LazyFrame | None]:
    """The run's player count and its records and events restricted to the players' seats.

    A game's own seats beyond the players (the opponent of a solo mode, such as
    Vorex's weed) are not players: their results are the players' complement.
    """
    seats = int(records["seat"].max()) + 1 if records.height else 0
    players = int(manifest.get("players") or seats)
    if players < seats:
        records = records.filter(pl.col("seat") < players)
        if events is not None and "seat" in columns_of(events):
            events = events.filter(pl.col("seat") < players)
    return players, records, events


def _analyse(path: Path, manifest: dict, records: pl.DataFrame, events: pl.DataFrame | pl.LazyFrame | None,
             delta: float, trajectories: pl.DataFrame | None = None, band_share: float = stats.BAND_SHARE,
             tally: RunTally | None = None, detail: Detail | None = None) -> RunAnalysis:
    """The analysis of ``records`` (the detail deals when ``tally`` holds every deal's tallies; else every deal,
    tallied here)."""
    players, records, events = player_seats(manifest, records, events)
    if trajectories is not None:
        trajectories = trajectories.filter(pl.col("seat") < players)
    target = target_band(manifest.get("config", {}))
    if tally is None:
        tally = tally_records(records, players, target, delta)
    detail = detail or Detail(tally.deals, tally.deals)
    bots = tally.bots
    rotated = int(manifest.get("rotations", 1)) > 1  # a collapsed rotation (same bot in every seat) is not one
    advantage = stats.seat_advantage(tally.seats, delta=delta) if players > 1 else None
    length = stats.game_length(tally.outcomes)
    changes = stats.lead_changes(records, events)  # only from events with a running score
    if changes is not None:
        length = replace(length, lead_changes=changes)
    band = stats.band_share(tally.outcomes, target, band_share) if target is not None else None
    gradient, gradient_error = None, None
    if rotated and len(bots) > 1:
        try:
            gradient = stats.skill_gradient(records)
        except stats.StatsError as error:  # e.g. every game stalled: no comparison to fit
            gradient_error = str(error)
    component, values = design_components(manifest.get("game"), events)
    designer = analyse_designer(manifest.get("game"), manifest, records, events, players,
                                (component, values) if component is not None else None, trajectories)
    components = None
    if component is not None and events is not None and not is_empty(events):
        used = events
        if values is not None:
            used = events.filter(pl.col(component).is_in(list(values)))
        elif events.collect_schema()[component] == pl.String:  # every named value (rows of other events hold "")
            used = events.filter(pl.col(component).is_not_null() & (pl.col(component) != ""))
        components = stats.component_strength(records, used, component, values=values, by="bot")
    return RunAnalysis(
        path=path, manifest=manifest, records=records, events=events, delta=delta, players=players, bots=bots,
        rotated=rotated, target=target, advantage=advantage,
        tests=seat_tests(advantage) if advantage is not None else pl.DataFrame(),
        by_seat=stats.proportion_table(tally.outcomes.rate_table("seat"), "seat"),
        by_bot=stats.proportion_table(tally.outcomes.rate_table("bot"), "bot"),
        length=length, margin=stats.score_margin(records), band=band, unfinished=stats.unfinished(tally.outcomes),
        gradient=gradient,
        gradient_error=gradient_error, component=component, components=components, designer=designer,
        tally=tally, detail=detail,
    )


def _verdict_flag(advantage: stats.SeatAdvantage) -> Flag:
    delta = f"\u00b1{100 * advantage.delta:g} points"
    level = {stats.VERDICT_BALANCED: "ok", stats.VERDICT_UNBALANCED: "warn"}.get(advantage.verdict, "info")
    title = {
        stats.VERDICT_BALANCED: f"Seat balance: balanced within {delta}.",
        stats.VERDICT_UNBALANCED: "Seat balance: unbalanced.",
        stats.VERDICT_NOT_MEASURED: "Seat balance: not measured by this lineup.",
    }.get(advantage.verdict, "Seat balance: not enough games yet.")
    if advantage.verdict == stats.VERDICT_UNBALANCED and advantage.players == 2:  # the seat test is the headline's
        seat = advantage.largest_deviation_seat
        share = float(advantage.seats.filter(pl.col("seat") == seat)["share"][0])
        title = f"Seat balance: unbalanced, seat {seat} wins {'more' if share > 0.5 else 'less'} than its fair share."
    if advantage.verdict == stats.VERDICT_UNSURE and advantage.more_games is not None:
        title = (f"Seat balance: not enough games yet (about {advantage.more_games:,} more {advantage.unit} for "
                 f"the equivalence test within {delta}, {100 * advantage.power:g}% power if the estimates held).")
    # The headline, then the design, effect-size and equivalence lines; the Seats section refers to them.
    return Flag(level, title, _plain("; ".join([seat_headline(advantage), *_summary_lines(advantage)])))


def _detail_lines(advantage: stats.SeatAdvantage) -> list[str]:
    """``advantage.describe()`` without its headline line, which :func:`seat_headline` says instead, and without
    how ties and stalls count (``advantage.handling``), which the headline says too; the games still needed are
    the verdict's title (:func:`_verdict_flag`)."""
    lines = [line.strip().replace(f"; {advantage.handling}", "") for line in advantage.describe().splitlines()]
    return [line for line in lines if line and not line.startswith(
        ("seat 0 wins", "seat shares vs", "seat balance between equal players", "about "))]


def _summary_lines(advantage: stats.SeatAdvantage) -> list[str]:
    """The detail lines the Summary's first finding says after the headline (the per-seat lines are the Seats
    table's rows, the largest deviation is the Seats section's)."""
    headline = seat_headline(advantage)
    lines = []
    for line in _detail_lines(advantage):
        if line.startswith(("seat ", "largest deviation")):
            continue
        parts = line.split(": ")  # a line may end in the headline's own reason (a lineup that cannot measure)
        said = next((k for k in range(1, len(parts)) if ": ".join(parts[k:]) in headline), len(parts))
        lines.append(": ".join(parts[:said]))
    return lines


# What the Summary's first finding says beyond the headline, by the start of its line, as the Seats lead names it.
_SUMMARY_PARTS = (("mixed lineups", "the design"), ("equivalence within", "the equivalence test"),
                  ("effect size", "the effect size"), ("balance within", "why balance cannot be shown yet"))


def _seat_flags(a: RunAnalysis) -> list[Flag]:
    flags = []
    adv = a.advantage
    fair = 1 / a.players
    if adv.games_tested == 0:
        return [Flag("info", "Seat advantage not tested: no game had a result to count.", adv.handling)]
    if not adv.measured or a.players == 2:  # with 2 players the one seat test is the headline's (the verdict)
        return []
    what = "of first places" + (" of this lineup" if adv.estimand == stats.ESTIMAND_LINEUP else "")
    correction = f"Holm-corrected across {a.players} seats"
    test = "t test on per-deal shares" if adv.unit == "deals" else "exact binomial test"
    significant = a.tests.filter(pl.col("significant"))
    for row in significant.to_dicts():
        direction = "more" if row["share"] > fair else "less"
        flags.append(Flag("warn", f"Seat {row['seat']} wins {direction} than its fair share.",
                          f"seat {row['seat']}'s share {what} (the headline's) against {_pct(fair)}: {test}, "
                          f"{stats.format_p(row['p_holm'])} ({correction}), {adv.n_text}"))
    if not significant.height:
        finite = a.tests["p_holm"].drop_nans().drop_nulls()
        smallest = float(finite.min()) if finite.len() else float("nan")
        flags.append(Flag("ok", "No seat differs significantly from its fair share.",
                          f"smallest adjusted {stats.format_p(smallest)} ({correction}), {adv.n_text}"))
    return flags


def _stall_flag(unfinished: stats.Unfinished, cap: Any) -> Flag:
    """Stalls (the turn cap) and blocked games (no seat could move), each with its rate: a warning over 1%."""
    u = unfinished
    cap_text = f" (the turn cap is {cap} turns)" if cap is not None else ""
    evidence = f"{u.rates_text()}; n = {u.either.n:,} games" + cap_text
    either = u.stalls.rate + u.blocked.rate
    if u.blocked.k:
        if either > STALL_FLAG:
            return Flag("warn", f"High stall rate: {_pct(either)} of games stalled or ended blocked (stalls "
                                f"{_pct(u.stalls.rate)}, blocked {_pct(u.blocked.rate)}), over {STALL_FLAG:.0%}.",
                        evidence + "; a blocked game ended when no seat could move again (scored)")
        return Flag("ok", f"Stalls and blocked games {_pct(either)}, at most {STALL_FLAG:.0%}.", evidence)
    if u.stalls.rate > STALL_FLAG:
        return Flag("warn", f"High stall rate: {_pct(u.stalls.rate)} of games never finished.", evidence)
    return Flag("ok", f"Stall rate {_pct(u.stalls.rate)}, at most {STALL_FLAG:.0%}.", evidence)


def _length_flag(length: stats.GameLength, target: tuple[float, float] | None,
                 band: stats.BandShare | None) -> Flag:
    """The game length against the target band: OK only when the required share of games is shown inside it."""
    shape = (f"median {length.median:g} turns, quartiles {length.q1:g} / {length.q3:g}, n = {length.games:,} games; "
             f"mean {length.mean.mean:.1f} {_ci_num(length.mean.low, length.mean.high, 1)} ({length.mean.method})")
    if target is None or band is None:
        return Flag("info", f"Typical game {length.median:g} turns (median); the config sets no target band.",
                    shape + "; add [report] target_turns = [low, high] to the game's config to check it")
    share = band.share
    inside = f"{_pct(share.rate)} {_ci(share.low, share.high)}"
    needs = f"the target needs {_pct(band.required, 0)}"
    evidence = _plain(band.describe()) + "; " + shape
    if band.verdict == "inside":
        return Flag("ok", f"Game length: {inside} of games inside the target {band.band_text}; {needs}.", evidence)
    if band.verdict == "outside":
        side = ("too short" if band.below > band.above else "too long")
        return Flag("warn", f"Game length off target: only {inside} of games inside {band.band_text} ({needs}; "
                            f"{_pct(band.below)} shorter, {_pct(band.above)} longer: mostly {side}).", evidence)
    return Flag("info", f"Game length undecided: {inside} of games inside {band.band_text}; {needs}, not shown "
                        "either way.", evidence)


def _component_flags(a: RunAnalysis) -> list[Flag]:
    """One flag per component that looks dominant (for any bot), one per component almost never used."""
    if a.components is None:
        return [Flag("info", "Component strength not measured: this game records no component events.", "")]
    flags = []
    table, c = a.components, a.component
    dominant = table.filter(pl.col("dominant"))
    for name in dominant[c].unique(maintain_order=True).to_list():
        rows = dominant.filter(pl.col(c) == name).to_dicts()
        bots = [r["bot"] for r in rows]
        evidence = "; ".join(
            f"{r['bot']}: seat-games that used it won {_pct(r['win_used'])} vs {_pct(r['win_not_used'])} when not, "
            f"{_pts(r['difference'])} points {_ci_pts(r['diff_low'], r['diff_high'])} (Newcombe 95% by deal), Holm "
            f"{stats.format_p(r['p_holm'])}, used in {_pct(r['use_rate'])} of {r['seat_games']:,} seat-games"
            for r in rows)
        flags.append(Flag(
            "warn", f"Observational: {name} looks dominant for {' and '.join(bots)}.",
            evidence + ". Observational and biased (a seat may use it because it is winning): confirm with an "
                       "ablation on the same seeds"))
    unused = table.filter(pl.col("unused"))
    for name in unused[c].unique(maintain_order=True).to_list():
        rows = unused.filter(pl.col(c) == name).to_dicts()
        parts = []
        for r in rows:
            use = stats.proportion(r["used"], r["seat_games"])
            parts.append(f"{r['bot']} {_pct(use.rate, 2)} {_ci(use.low, use.high, 2)} of {r['seat_games']:,}")
        flags.append(Flag("warn", f"{name} is almost never used ({', '.join(r['bot'] for r in rows)}).",
                          "share of seat-games that used it: " + "; ".join(parts) + " (Wilson 95%), under 1%"))
    if not flags:
        count = table[c].n_unique()
        flags.append(Flag("ok", "No component looks dominant or unused (observational).",
                          f"{count} {c} values x {table['bot'].n_unique()} bots; dominant would need Holm "
                          "p < 0.05 and +10 points when used, unused under 1% of seat-games"))
    if not a.detail.whole:
        flags = [replace(f, evidence=f"{f.evidence}; {a.detail.text()}") for f in flags]
    return flags


def _gradient_flag(a: RunAnalysis) -> Flag | None:
    if a.gradient is None:
        if a.gradient_error:
            return Flag("info", "Skill gradient could not be measured.", a.gradient_error)
        if len(a.bots) > 1:
            return Flag("info", "Skill gradient not measured: bots sit in fixed seats.",
                        "bots and seats are confounded; play with --rotate-seats to measure skill")
        return None
    g = a.gradient
    strong, weak = g.strongest, g.weakest
    row = g.pairwise.filter(((pl.col("bot_a") == strong) & (pl.col("bot_b") == weak))
                            | ((pl.col("bot_a") == weak) & (pl.col("bot_b") == strong)))
    evidence = ""
    if row.height:
        r = row.to_dicts()[0]
        flip = r["bot_a"] != strong
        share = 1 - r["share"] if flip else r["share"]
        low, high = (1 - r["share_high"], 1 - r["share_low"]) if flip else (r["share_low"], r["share_high"])
        evidence = (f"{strong} takes {_pct(share)} {_ci(low, high)} of points against {weak} ({r['method']}), "
                    f"n = {r['deals']:,} deals ({r['games']:,} games), {stats.format_p(r['p_value'])} vs 50%"
                    + a.detail.text("; "))
    else:
        evidence = f"{strong} vs {weak} never met; Bradley-Terry share {_pct(g.share(strong, weak))}"
    if g.gradient_too_flat(FLAT_GRADIENT):
        return Flag("warn", "Skill gradient too flat: the strongest bot barely beats the weakest.",
                    evidence + f"; within {FLAT_GRADIENT:.0%} of 50%")
    return Flag("ok", f"Skill matters: {strong} beats {weak}.", evidence)


def _stopping_text(manifest: dict) -> str:
    """How the run's size was chosen, and whether seat rotation was collapsed (from the manifest)."""
    from analysis.stopping import describe_stopping

    stopping = manifest.get("stopping")
    text = (describe_stopping(stopping, manifest.get("games")) if stopping
            else f"none: a fixed size of {manifest.get('games', 0):,} deals")
    if manifest.get("rotations_collapsed"):
        text += f"; --rotate-seats played one rotation ({manifest['rotations_collapsed']})"
    return text


def _run_notes(a: RunAnalysis) -> list[Flag]:
    """What a reader must know about how the run was played: its stopping rule, a collapsed seat rotation."""
    notes = []
    if a.manifest.get("stopping"):
        notes.append(Flag("info", "The run's size was chosen by a stopping rule (play --until-ci or --until-decided).",
                          _stopping_text(a.manifest)))
    elif a.manifest.get("rotations_collapsed"):
        notes.append(Flag("info", "Seat rotation played one rotation: the same bot sits in every seat.",
                          a.manifest["rotations_collapsed"]))
    return notes


def run_flags(a: RunAnalysis) -> list[Flag]:
    """The summary's findings, warnings first, then the checks that passed."""
    cap = ((a.manifest.get("config") or {}).get("limits") or {}).get("max_turns")
    seats = [_verdict_flag(a.advantage), *_seat_flags(a)] if a.advantage is not None else [_solo_flag(a)]
    flags = [*seats, _stall_flag(a.unfinished, cap),
             _length_flag(a.length, a.target, a.band), *_component_flags(a), *_run_notes(a)]
    gradient = _gradient_flag(a)
    if gradient is not None:
        flags.append(gradient)
    order = {"warn": 0, "info": 1, "ok": 2}
    return [flags[0]] + sorted(flags[1:], key=lambda f: order[f.level])


def _solo_flag(a: RunAnalysis) -> Flag:
    """A solitaire run: how often the player wins (beats the game's target), with its interval."""
    row = a.by_seat.to_dicts()[0]
    return Flag("info", f"Solitaire: the player wins {_pct(row['win_rate'])} of games.",
                f"{_pct(row['win_rate'])} {_ci(row['win_low'], row['win_high'])} (Wilson 95%), n = {row['games']:,} "
                f"games; mean score {_num(row['mean_score'])} {_ci_num(row['score_low'], row['score_high'])}")


def _solo_section(a: RunAnalysis) -> Section:
    """The seat section of a solitaire run: one seat, its win rate and how the estimate converged."""
    row = a.by_seat.to_dicts()[0]
    table = Table(
        [Column("Seat"), Column("Bot"), Column("Games", True), Column("Win rate", True), Column("Wilson 95%", True),
         Column("Stalls", True), Column("Mean score", True), Column("95% interval", True)],
        [["seat 0", a.bots[0], _int(row["games"]), _pct(row["win_rate"]), _ci(row["win_low"], row["win_high"]),
          _pct(row["stall_rate"]), _num(row["mean_score"]), _ci_num(row["score_low"], row["score_high"])]],
        caption=f"A solitaire game is won or lost against the game's own target. {_score_note(a.by_seat)}.")
    n, rate, low, high = a.tally.running
    return Section("seats", "Solitaire result", [
        table,
        Plot("convergence", plots.convergence(n, rate, low, high, float(row["win_rate"]), label="win rate",
                                              reference_label="final estimate"),
             "The player's win rate after each number of games, in game order, with a pointwise Wilson 95% "
             "interval; the dashed line is the estimate over all games."),
    ])


def _run_title(manifest: dict) -> str:
    bots = manifest.get("bots", [])
    players = int(manifest.get("players") or len(bots))
    title = " vs ".join(bots[:players])
    if len(bots) > players:
        title += " vs the game's seat (" + ", ".join(bots[players:]) + ")"
    return f"{_game_title(manifest.get('game', '?'))}: {title}"


def _solo_kind(a: RunAnalysis) -> str:
    """What a one-player run is played against: the game's target, or the game's own seats."""
    house = a.manifest.get("bots", [])[a.players:]
    if house:
        return f"A solo run: the player against the game's own seat{'s' if len(house) > 1 else ''} (played by " \
               f"{', '.join(house)}); the player's win is the game's own win condition. "
    return "A solitaire run: one seat against the game's target. "


def _run_subtitle(a: RunAnalysis) -> str:
    m = a.manifest
    rotations = m.get("rotations", 1)
    rot = f" \u00d7 {rotations} seat rotations" if rotations > 1 else ""
    overrides = m.get("config_overrides") or []
    sets = f"; --set {' '.join(overrides)}" if overrides else ""
    house = len(m.get("bots", [])) > a.players
    players = ("solo against the game's seat" if house else "solitaire") if a.players == 1 else f"{a.players} players"
    return (f"{a.games:,} games ({m.get('games', 0):,} deals{rot}), {players}, seed {m.get('seed')}, "
            f"config {m.get('config_hash')}{sets}. Run directory {a.path}")


def _seat_section(a: RunAnalysis) -> Section:
    fair = 1 / a.players
    lineups = a.manifest.get("lineups") or []
    shares = {row["seat"]: row for row in a.advantage.seats.to_dicts()}
    tested = "decided games" if a.players == 2 else "first places"
    rows, marked = [], []
    significant = set(a.tests.filter(pl.col("significant"))["seat"].to_list())
    for row in a.by_seat.to_dicts():
        seat = row["seat"]
        bot = "rotates" if a.rotated else (lineups[0][seat] if lineups else "")
        share = shares[seat]
        rows.append([
            f"seat {seat}", bot, _int(row["games"]), _pct(row["win_rate"]), _ci(row["win_low"], row["win_high"]),
            _pct(share["share"]), _ci(share["share_low"], share["share_high"]), _p(share["tost_p"]),
            _pct(row["tie_rate"]),
            _pct(row["stall_rate"]), _num(row["mean_score"]), _ci_num(row["score_low"], row["score_high"]),
        ])
        marked.append(seat in significant)
    equal = " of this lineup" if a.advantage.estimand == stats.ESTIMAND_LINEUP else ""
    table = Table(
        [Column("Seat"), Column("Bot"), Column("Games", True), Column("First places", True),
         Column("Wilson 95%", True), Column(f"Share of {tested}{equal} (headline)", True), Column("95% interval", True),
         Column(f"Equivalence p (\u00b1{100 * a.advantage.delta:g} points)", True), Column("Ties", True),
         Column("Stalls", True), Column("Mean score", True), Column("95% interval", True)],
        rows,
        caption=(f"First places: shared ones included, over all games. The share of {tested} is the headline's and "
                 f"what the seat-advantage test uses (fair share {_pct(fair)}; {a.advantage.share_method}; "
                 f"{a.advantage.n_text}; ties and stalls counted as the headline says). Equivalence p: that seat's "
                 "test of a share within "
                 f"\u00b1{100 * a.advantage.delta:g} points of the fair share ({a.advantage.equivalence_method}). "
                 f"{_score_note(a.by_seat)}. Highlighted: a seat whose share differs from the fair share "
                 "(Holm-corrected)."),
        marked=marked,
    )
    return Section("seats", "Seats", [
        Paragraph(_seat_lead(a.advantage), "lead"),
        *_seat_bullets(a.advantage),
        table,
        *_seat_figures(a, fair, equal),
    ])


def _seat_lead(advantage: stats.SeatAdvantage) -> str:
    """The Seats section refers to the headline and the lines after it, which the Summary's first finding says in
    full (each said once)."""
    said = [name for start, name in _SUMMARY_PARTS if any(line.startswith(start)
                                                           for line in _summary_lines(advantage))]
    title = _verdict_flag(advantage).title
    verdict = title.split(" (")[0].rstrip(".")  # the games still needed: said in the finding's title
    said += ["the games still needed"] if verdict != title.rstrip(".") else []
    evidence = "its evidence" + (f" ({', '.join(said)})" if said else "")
    return (f"{verdict}: the headline and {evidence} are the Summary's first finding; each seat's share, interval "
            "and equivalence test are in the table below.")


def _seat_bullets(advantage: stats.SeatAdvantage) -> list[Block]:
    """The seat analysis's lines that neither the Summary's first finding nor the table says (the largest
    deviation with 3-4 players)."""
    said = set(_summary_lines(advantage))
    lines = [_plain(line) for line in _detail_lines(advantage)
             if not line.startswith("seat ") and not any(line.startswith(start) for start in said)]
    return [Bullets(lines)] if lines else []


def _seat_figures(a: RunAnalysis, fair: float, equal: str) -> list[Block]:
    """The seat shares and their convergence over the first deals; a note instead when no share is measured."""
    if not np.isfinite(a.advantage.seats["share"].to_numpy()).any():
        said = seat_headline(a.advantage)  # the lineup's note is the headline's (the Summary's first finding)
        why = (" (why: the Summary's first finding)" if a.advantage.lineup_note and _plain(a.advantage.lineup_note)
               in _plain(said) else f" ({_plain(a.advantage.lineup_note)})" if a.advantage.lineup_note else "")
        return [Paragraph(f"No seat-share figures: {a.advantage.verdict}{why}.", "note")]
    n, share, low, high = a.tally.convergence
    what = "share of decided games" if a.players == 2 else "share of first places"
    return [
        Plot("seat-win-rates", plots.seat_win_rates(
            a.advantage.seats, fair, what=what, note=f"n = {a.advantage.games_tested:,} games",
            method="95%" if len(a.advantage.share_method) > 12 else a.advantage.share_method),
            f"The headline's {what}{equal} per seat with 95% intervals ({a.advantage.share_method}); the dashed line "
            f"is the fair share {_pct(fair)}; ties and stalls counted as the headline says."),
        Plot("convergence", plots.convergence(n, share, low, high, fair, label=f"seat 0 {what}",
                                              xlabel="games played (the first deals, in deal order)",
                                              band="95% interval (pointwise)"),
             f"The headline's figure, seat 0's {what}{equal}, over the first deals (the whole analysis rerun on "
             f"them; {a.advantage.share_method}, pointwise): the estimate settles as deals accumulate; the last "
             "point is the headline."),
    ]


def _bot_section(a: RunAnalysis) -> Section:
    rows = [[str(row["bot"]), _int(row["games"]), _pct(row["win_rate"]), _ci(row["win_low"], row["win_high"]),
             _pct(row["tie_rate"]), _pct(row["stall_rate"]), _num(row["mean_score"]),
             _ci_num(row["score_low"], row["score_high"])] for row in a.by_bot.to_dicts()]
    blocks: list[Block] = [Table(
        [Column("Bot"), Column("Seat-games", True), Column("Win rate", True), Column("Wilson 95%", True),
         Column("Ties", True), Column("Stalls", True), Column("Mean score", True), Column("95% interval", True)],
        rows, caption=("One row per bot; a seat-game is one bot in one game. " + _score_note(a.by_bot) + "."
                       + ("" if a.rotated or len(a.bots) == 1 else
                          " Seats do not rotate, so each bot's rate is also its seat's.")))]
    g = a.gradient
    if g is not None:
        blocks.append(Heading("Skill gradient"))
        blocks.append(Paragraph(
            "Does skill matter? The games of one deal (every seat rotation, same seed) are one paired unit; a "
            "bot's share of points against another counts a tie or stall as half. Ratings are Bradley-Terry "
            f"({_plain(g.rating_method)}), {g.reference} fixed at 0."
            + (f" Measured on {a.detail.text('')}." if not a.detail.whole else "")))
        blocks.append(Table(
            [Column("Bot A"), Column("Bot B"), Column("Deals", True), Column("Games", True),
             Column("A's share of points", True), Column("95% interval", True), Column("p vs 50%", True),
             Column("Interval method")],
            [[r["bot_a"], r["bot_b"], _int(r["deals"]), _int(r["games"]), _pct(r["share"]),
              _ci(r["share_low"], r["share_high"]), _p(r["p_value"]), r["method"]] for r in g.pairwise.to_dicts()],
            caption="Pairwise shares, paired by deal (never games as independent units)."))
        blocks.append(Table(
            [Column("Bot"), Column("Rating (logit)", True), Column("SE", True), Column("Elo", True),
             Column("Elo 95%", True), Column("Comparisons", True)],
            [[r["bot"], f"{r['rating']:+.2f}", "reference" if r["bot"] == g.reference else _num(r["se"]),
              f"{r['elo']:+.0f}", "reference" if r["bot"] == g.reference else
              f"[{r['low'] * stats.ELO_PER_LOGIT:+.0f}, {r['high'] * stats.ELO_PER_LOGIT:+.0f}]",
              _int(r["comparisons"])] for r in g.ratings.sort("rating", descending=True).to_dicts()],
            caption=(f"Normal 95% intervals on the logit scale, 400/ln 10 Elo per logit. First-seat edge "
                     f"{g.seat_edge:+.3f} \u00b1 {g.seat_edge_se:.3f} logit."
                     + (" Perfect separation: ratings use a virtual-draw prior." if g.separated else ""))))
        blocks.append(Plot("skill-gradient", plots.skill_gradient(g.pairwise, g.ratings, g.reference),
                           "Left: each pairing's share of points with its paired interval; the dashed line is 50%. "
                           "Right: Bradley-Terry ratings in Elo with t 95% intervals (deals - 1 degrees of freedom)."))
    elif a.gradient_error:
        blocks.append(Paragraph(f"Skill gradient: could not be measured ({a.gradient_error}).", "note"))
    elif len(a.bots) > 1:
        blocks.append(Paragraph("Skill gradient: not measured, because bots sit in fixed seats (a bot's results "
                                "are its seat's). Play with --rotate-seats to measure it.", "note"))
    return Section("bots", "Bots", blocks)


def score_counts(a: RunAnalysis, key: str, value: object) -> tuple[np.ndarray, np.ndarray]:
    """(distinct final scores ascending, seat-games at each) of the seats or bot ``key == value``, every deal."""
    counts = (a.tally.outcomes.rate_table(key).filter(pl.col(key) == value).group_by("score")
              .agg(pl.col("games").sum()).sort("score"))
    return counts["score"].cast(pl.Float64).to_numpy(), counts["games"].cast(pl.Float64).to_numpy()


def _quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``values`` repeated ``counts`` times, interpolated linearly (numpy's default)."""
    position = q * (counts.sum() - 1)
    ends = np.cumsum(counts)
    low, high = (values[np.searchsorted(ends, i, side="right")] for i in (np.floor(position), np.ceil(position)))
    return float(low + (position - np.floor(position)) * (high - low))


def _score_section(a: RunAnalysis) -> Section:
    by_seat = [(f"seat {s}", score_counts(a, "seat", s)) for s in range(a.players)]
    by_bot = [(b, score_counts(a, "bot", b)) for b in a.bots] if len(a.bots) > 1 else None
    m = a.margin
    if a.players == 1:
        values, counts = by_seat[0][1]
        mean = float((values * counts).sum() / counts.sum())
        return Section("scores", "Scores", [
            Facts([("Final score", f"mean {_num(mean)}, median {_quantile(values, counts, 0.5):g}, "
                                   f"min {values.min():g}, max {values.max():g}; n = {int(counts.sum()):,} games")]),
            Plot("score-distributions", plots.score_distributions(by_seat, None),
                 "Share of games at each final score; the vertical line marks the mean."),
        ])
    facts = [("Score margin (first minus second)",
              f"{_num(m.mean.mean)} {_ci_num(m.mean.low, m.mean.high)} ({m.mean.method}), n = {m.games:,} games, "
              f"{m.stalls_excluded:,} stalls excluded" + a.detail.text("; from "))]
    if m.smallest is not None:
        facts.append((f"Won by the smallest margin ({m.smallest:g})",
                      f"{_pct(m.smallest_share.rate)} {_ci(m.smallest_share.low, m.smallest_share.high)} (Wilson 95%)"
                      + a.detail.text(", from ")))
    facts.append(("Shared first places", f"{_pct(m.ties.rate)} {_ci(m.ties.low, m.ties.high)} (Wilson 95%)"
                                         + a.detail.text(", from ")))
    facts += won_not_on_points(m)
    return Section("scores", "Scores", [
        Facts(facts),
        Plot("score-distributions", plots.score_distributions(by_seat, by_bot),
             "Share of seat-games at each final score (every deal); vertical lines mark the means."),
    ])


def won_not_on_points(m: stats.Margin) -> list[tuple[str, str]]:
    """Facts on games won without outscoring second place: at equal points (a rule breaks the tie, such as
    Vorex's resources) and with fewer points (the game ends on a goal, such as Overgrowth's connection)."""
    facts = []
    for share, name, why in ((m.tie_break, "Won at equal points (a tie-break)",
                              "the winner scored as much as second place and won on the game's tie-break rule"),
                             (m.fewer_points, "Won with fewer points than second place",
                              "the game ends on a goal, not on points")):
        if share is not None and share.k:
            facts.append((name, f"{_pct(share.rate)} {_ci(share.low, share.high)} ({share.method} 95%): {why}"))
    return facts


def _length_section(a: RunAnalysis) -> Section:
    L = a.length
    facts = [
        ("Turns", f"mean {L.mean.mean:.1f} {_ci_num(L.mean.low, L.mean.high, 1)} ({L.mean.method}); median "
                  f"{L.median:g}, quartiles {L.q1:g} / {L.q3:g}, min {L.minimum:g}, max {L.maximum:g}; "
                  f"n = {L.games:,} games"),
        ("Target band", f"{a.target[0]:g}\u2013{a.target[1]:g} turns (config [report] target_turns)"
         if a.target else "none set (config [report] target_turns)"),
    ]
    if a.band is not None:
        facts.append(("Games inside the band", _plain(a.band.describe())))
    facts.append(("Stalls", f"{_pct(L.stalls.rate, 2)} {_ci(L.stalls.low, L.stalls.high, 2)} ({L.stalls.method} 95%), "
                            f"{int(L.stalls.k):,} games"))
    if a.unfinished.blocked.k:
        b = a.unfinished.blocked
        facts.append(("Blocked", f"{_pct(b.rate, 2)} {_ci(b.low, b.high, 2)} ({b.method} 95%), {int(b.k):,} games "
                                 "ended when no seat could move again (scored)"))
    if L.lead_changes is not None:
        facts.append(("Lead changes", _plain(L.lead_changes.describe())))
    ends = Table(
        [Column("End"), Column("Games", True), Column("Share", True), Column("Wilson 95%", True)],
        [[str(r["end"]), _int(r["games"]), _pct(r["share"]), _ci(r["share_low"], r["share_high"])]
         for r in L.ends.to_dicts()],
        caption="Why games ended (stall: the turn cap was reached).",
        marked=[str(r["end"]) == "stall" for r in L.ends.to_dicts()])
    return Section("length", "Game length and endings", [
        Facts(facts),
        Plot("game-length", plots.game_length(L.histogram, a.target, L.median, L.q1, L.q3, turn_cap(a.manifest),
                                              a.players),
             "Share of games per number of turns" + (", the target band shaded; games outside it hatched."
                                                     if a.target else ".")
             + plots.length_cap_note(plots.length_cap(L.histogram, turn_cap=turn_cap(a.manifest),
                                                      keep=a.target[1] if a.target else None), L.histogram)),
        ends,
        Plot("end-reasons", plots.end_reasons(L.ends), "Share of games per end reason with Wilson 95% intervals."),
    ])


def turn_cap(manifest: dict) -> float | None:
    """The run's turn limit (``[limits] max_turns``), where its stalls end; None when the config has none."""
    cap = ((manifest.get("config") or {}).get("limits") or {}).get("max_turns")
    return float(cap) if isinstance(cap, (int, float)) and not isinstance(cap, bool) else None


def _component_section(a: RunAnalysis) -> Section:
    title = "Content strength per item (observational)"
    if a.components is None:
        return Section("components", title, family_blocks(a.designer) + [
            Paragraph("This game declares no design component column in its events, so there is no table by "
                      "bot.", "note")])
    t, c = a.components, a.component
    rows, marked, intervals = [], [], {k: [] for k in ("use", "used", "not")}
    for r in t.to_dicts():
        use = stats.proportion(r["used"], r["seat_games"])
        used = stats.proportion(r["wins_used"], r["used"]) if r["used"] else None
        not_used = stats.proportion(r["wins_not_used"], r["not_used"]) if r["not_used"] else None
        for key, p in (("use", use), ("used", used), ("not", not_used)):
            intervals[key].append((p.low, p.high) if p is not None else (np.nan, np.nan))
        flag = "dominant?" if r["dominant"] else "unused" if r["unused"] else ""
        rows.append([str(r["bot"]), str(r[c]), _pct(r["use_rate"]), _pct(r["win_used"]), _pct(r["win_not_used"]),
                     _pts(r["difference"]), _ci_pts(r["diff_low"], r["diff_high"]), _p(r["p_holm"]), flag])
        marked.append(bool(flag))
    arrays = {k: (np.array([v[0] for v in vals]), np.array([v[1] for v in vals])) for k, vals in intervals.items()}
    same = _same_family(a, t, c)
    table: Block = Table(
        [Column("Bot"), Column(c.capitalize()), Column("Use rate", True), Column("Win when used", True),
         Column("Win when not", True), Column("Difference (points)", True), Column("95% by deal", True),
         Column("Holm p", True), Column("Flag")], rows,
        caption="n/a: used in every seat-game (or none), so there is nothing to compare. 95% by deal: Newcombe "
                "on counts divided by the design effect (the deal is the unit). Holm across all rows.",
        marked=marked)
    if same is not None:  # one bot: the table by bot would repeat the family's row for row
        table = Paragraph(f"One bot played every seat, so the table by bot is the \u201c{same}\u201d table above, "
                          "row for row; the figure draws it with intervals.", "note")
    return Section("components", title, family_blocks(a.designer) + [
        Heading(f"The game's declared components ({c}), by bot"),
        Paragraph(f"Win rate of seat-games that used each {c} against those that did not, per bot. This is "
                  "observational and biased: strong seats and long games use more, and a component may be used "
                  "because a seat is already winning. Confirm a finding with an ablation on the same seeds (the "
                  "component removed or forced, compared with a paired difference), and say which bots it holds "
                  "for.", "lead"),
        table,
        Plot("component-strength", plots.component_strength(t, c, *arrays["use"], *arrays["used"], *arrays["not"]),
             "Left: how often each component is used. Right: win rate when used (filled) and when not (open), with "
             "Wilson 95% intervals. Observational."),
    ])


def _same_family(a: RunAnalysis, table: pl.DataFrame, column: str) -> str | None:
    """The title of the family whose table holds the one-bot table by bot row for row (items and differences)."""
    if table["bot"].n_unique() != 1:
        return None

    def rows(frame: pl.DataFrame) -> list[tuple]:
        return sorted(zip(frame[column].cast(pl.String).to_list(), frame["difference"].round(9).fill_nan(None)))

    return next((family.title for family, found in a.designer.families
                 if family.item == column and found is not None and rows(found) == rows(table)), None)


def _bot_rows(manifest: dict) -> list[list[str]]:
    rows = []
    for bot in manifest.get("bot_kinds", []):
        weights = ", ".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                            for k, v in (bot.get("weights") or {}).items()) or "(none)"
        rows.append([bot.get("label", ""), bot.get("kind", ""), weights])
    return rows


def _run_manifest_blocks(path: Path, manifest: dict, games: int, label: str = "") -> list[Block]:
    rotations = manifest.get("rotations", 1)
    speed = manifest.get("games_per_second")
    speed_text = (f"{float(speed):,.0f} games/s" if _finite(speed)
                  else "n/a (not stored in the run's manifest)")
    lineups = manifest.get("lineups") or []
    seed = manifest.get("seed")
    facts = [
        ("Game", f"{_game_title(manifest.get('game', '?'))} ({manifest.get('game')})"),
        ("Run directory", str(path)),
        ("Config", f"hash {manifest.get('config_hash')}, from {manifest.get('config_source')}"),
        ("Overrides (--set)", " ".join(manifest.get("config_overrides") or []) or "none"),
        ("Seeds", f"root seed {seed}; deal d is played on game seed game_seeds({seed}, d)"
                  + (", the same seed in every seat rotation" if rotations > 1 else "")),
        ("Games", f"{games:,} in the records: {manifest.get('games', 0):,} deals \u00d7 {rotations} rotation"
                  f"{'s' if rotations > 1 else ''}; {len(manifest.get('chunks') or [])} chunk files"),
        ("Stopping rule", _stopping_text(manifest)),
        ("Players and seating", f"{manifest.get('players')} players; "
                                + "; ".join(f"rotation {i}: {', '.join(l)}" for i, l in enumerate(lineups))),
        ("Games per second", speed_text),
        ("Versions (run)", _versions_text(manifest.get("versions") or {})),
        ("Versions (report)", _versions_text(_versions_now())),
        ("Machine", str(manifest.get("machine")) if manifest.get("machine")
         else f"{machine()} (the machine that wrote this report; the manifest does not record the run's)"),
        ("Dates", f"run created {manifest.get('created', 'n/a')}, updated {manifest.get('updated', 'n/a')}"),
    ]
    return [
        Facts(facts),
        Table([Column("Bot"), Column("Kind"), Column("Weights")], _bot_rows(manifest),
              caption="Bots and personas with the evaluation weights they played with."),
        config_block(manifest, Path(path) / MANIFEST, label),
    ]


def config_block(manifest: dict, kept: Path, label: str = "") -> Code:
    """The run's config as the keys that differ from its game's shipped config (a run of a full config is pages
    long); ``kept`` names the file that holds the full config (a run's manifest.json, key "config")."""
    config = manifest.get("config") or {}
    summary = f"Config{label} (hash {manifest.get('config_hash')})"
    where = f'The full config is in {kept} (key "config"), from {manifest.get("config_source")}.'
    shipped = _shipped_config(manifest.get("game", ""))
    if shipped is None:  # a game this process cannot load: the whole config
        return Code(summary, config_text(config) + f"\n\n# {where}")
    rows = config_changes(shipped, config)
    source = f"the game's shipped config ({default_config_path(manifest.get('game', '')).relative_to(project_root())})"
    if not rows:
        return Code(f"{summary}: {source}, no key changed", where)
    lines = [f"{key} = {value}   # shipped: {old}" for key, old, value in rows]
    return Code(f"{summary}: {len(rows)} key{'s' if len(rows) > 1 else ''} differ from {source}",
                "\n".join(lines) + f"\n\n{where}")


def _shipped_config(game: str) -> dict | None:
    """The game's config as shipped (configs/games/GAME.toml, read as the game reads it), None if not loadable."""
    try:
        from sims.registry import get_game

        return get_game(game).load_config(None, ()).loaded.values
    except (KeyError, ConfigError, OSError):
        return None


def build_run_report(path: str | Path, delta: float = DELTA, band_share: float = stats.BAND_SHARE,
                     detail_deals: int = DETAIL_DEALS) -> Report:
    """The report of one run directory (``manifest.json``, ``records/``, ``events/``); ``band_share`` is the
    share of games the config's target band must hold for the length check to pass; ``detail_deals`` the deals
    the detail analyses read (the first ones; every other figure reads every deal)."""
    a = analyse_run(path, delta, band_share, detail_deals)
    flags = run_flags(a)
    warnings = sum(f.level == "warn" for f in flags)
    summary = Section("summary", "Summary", [
        Paragraph(f"{a.games:,} games of {_game_title(a.manifest.get('game', '?'))}, bots "
                  f"{', '.join(a.manifest.get('bots', []))}"
                  + (", seats rotated (every deal played once per seat order)" if a.rotated else ", seats fixed")
                  + (f". Verdict on seat balance within \u00b1{100 * delta:g} points: {a.advantage.verdict}. "
                     if a.advantage is not None else ". " + _solo_kind(a))
                  + f"{warnings} finding{'s' if warnings != 1 else ''} to look at.", "lead"),
        Flags(flags),
    ])
    seats = _seat_section(a) if a.advantage is not None else _solo_section(a)
    sections = [summary, seats, _detailed(why_section(a.designer), a.detail), _bot_section(a), _score_section(a),
                _length_section(a), _detailed(drama_section(a.designer), a.detail),
                _detailed(_component_section(a), a.detail), _methods_section(_RUN_METHODS),
                Section("manifest", "Run manifest", _run_manifest_blocks(a.path, a.manifest, a.games))]
    return Report("run", _run_title(a.manifest), _run_subtitle(a), sections, now(), headline=_headline(a))


def _detailed(section: Section, detail: Detail) -> Section:
    """``section`` with a note first when its figures read only the detail deals."""
    note = detail.note()
    return section if note is None else Section(section.id, section.title, [note, *section.blocks])


def _headline(a: RunAnalysis) -> str:
    """The line ``glade report`` prints: the same words as the Seats section's lead (or the solitaire win rate)."""
    if a.advantage is not None:
        return seat_headline(a.advantage)
    row = a.by_seat.to_dicts()[0]
    return solo_headline(stats.proportion(int(row["wins"]), int(row["games"])))
