"""The designer's sections of a run report: why a seat wins, how the game feels, and content strength per item.

Built only on what the records and events already hold (:mod:`analysis.report.content`
says what that is per game); what needs engine events that do not exist yet is
said in the sections, not left out silently.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from analysis import drama as course_of
from analysis import plots
from analysis import stats
from analysis.stats.trajectory import first_clear_round
from analysis.report.content import Family, GameContent, content_of, family_events, held_events, with_sources
from analysis.stats.common import is_empty
from analysis.stats.held import held_strength
from analysis.report.model import Block, Column, Facts, Heading, Paragraph, Plot, Section, Table
from analysis.report.text import _ci, _ci_num, _ci_pts, _finite, _int, _num, _p, _pct, _pts

OBSERVATIONAL = (
    "Observational, not causal: a seat that uses an item is not a random seat. Stronger play and longer games use "
    "more items, and an item may be taken because its seat is already ahead, so the difference leans towards items "
    "the winners could afford (a catch-up item can look weak for the same reason). Only an ablation on the same "
    "deals (the item removed, made dearer or swapped) shows what the item itself does.")

DESIGNER_METHODS = [
    "Score by source: each seat's mean points per game from each points_* column (or the sources a game's records "
    "derive, named in the section), the deal as the unit (a deal's games averaged first; "
    "analysis.stats.score_sources); "
    "intervals by analysis.stats.mean_interval. The leading seat is the one with the highest mean score; its lead per "
    "source is its points minus the other seats' mean in the same game, averaged per deal, with a one-sample t test "
    "against 0 (scipy.stats.ttest_1samp); a source's share is its part of the whole lead.",
    "Tempo: a seat's turns per game are the distinct values of the events' order column among its move events "
    "(analysis.stats.tempo); the seat whose move ended a game is the seat of the last move event. Shares of games "
    "ending on a seat's, the winner's or the final score leader's move have Wilson 95% intervals (by deal, a t or "
    "bootstrap interval of per-deal shares, when deals hold several games).",
    "Drama (analysis.stats.drama): decisiveness is the final margin (first place's score minus second's, stalls "
    "excluded) with its quartiles and the mean's interval; drawishness the share of shared first places (Wilson "
    "95%); the spread of game length the standard deviation of turns with a seeded percentile bootstrap 95% "
    "interval (scipy.stats.bootstrap), the interquartile range and the coefficient of variation. When deals hold "
    "several games (rotated seats) the deal is the unit: the margin's and the shares' intervals are over per-deal "
    "means (method 'by deal'), and the bootstrap of the standard deviation resamples whole deals.",
    "Course of the game (analysis.drama), from each seat's score at every round end (the run's trajectories: a "
    "round ends when a turn ends with seat 0 to move; a game's last point is its end): lead changes per game (the "
    "leader is the one seat strictly ahead; a tied round changes nothing), the comeback rate (of games with one "
    "winner and two rounds or more, the share whose winner was strictly behind at round rounds // 2) and the "
    "wire-to-wire rate (the winner never behind at a round end). Intervals take the deal as the unit when deals "
    "hold several games (analysis.stats.clustered_mean and clustered_proportion: per-deal means, t intervals); "
    "with one game a deal, the t interval of the mean and Wilson 95% for the shares. The trajectory "
    "figure shows per seat and round the median and the 25-75% band over the games still running, up to the last "
    "round that 10% of the games reached.",
    "Content strength per item (analysis.stats.item_strength), one table per component family: the win rate of "
    "seat-games that used the item against those that did not. The deal is the unit: a deal's seat-games are not "
    "independent (rotated games share their shuffles, and in one game one seat's win is another's loss), so the "
    "variance of the difference is the cluster-robust (sandwich) variance of the slope of win ~ used, clustered by "
    "deal (statsmodels OLS, cov_type='cluster'); its ratio to the independent-rows variance, floored at 1, is the "
    "design effect, and the Newcombe hybrid score interval (statsmodels "
    "confint_proportions_2indep(method='newcomb')) and the score test run on the counts divided by it (Rao-Scott "
    "effective counts). Holm (family-wise) and Benjamini-Hochberg (FDR) adjustments across the family's items "
    "(statsmodels multipletests); sorted by the difference. Observational (see the section).",
]


@dataclass(frozen=True, eq=False)
class DesignerAnalysis:
    """What the designer sections show, computed once."""

    content: GameContent
    players: int
    sources: stats.ScoreSources | None
    sources_text: str
    tempo: stats.Tempo | None
    drama: stats.Drama
    families: tuple[tuple[Family, pl.DataFrame | None], ...]
    course: course_of.Course | None = None


def analyse_designer(game: str | None, manifest: dict, records: pl.DataFrame,
                     events: pl.DataFrame | pl.LazyFrame | None, players: int,
                     declared: tuple[str, tuple | None] | None = None,
                     trajectories: pl.DataFrame | None = None) -> DesignerAnalysis:
    """Score sources, tempo, drama, the course of games (from ``trajectories``, the run's table restricted to the
    players) and the content families of one run (records restricted to the players). ``events`` may be lazy
    (a run's events, reduced a block of games at a time)."""
    content = content_of(game, events, declared)
    derived, sources_text = with_sources(game, records, manifest.get("config") or {})
    sources = stats.score_sources(derived)
    tempo = (stats.tempo(records, events, content.order, content.moves, content.moves_text)
             if content.order is not None else None)
    families = []
    has_events = events is not None and not is_empty(events)
    for family in content.families:
        used = family_events(events, family) if has_events else None
        held = held_events(events, family) if used is not None else None
        values = (held.lazy().select(pl.col(family.item).unique()).collect(engine="streaming")[family.item].to_list()
                  if held is not None else None)  # held, never played: 0%
        table = (stats.item_strength(records, used, family.item, points=family.points, values=values)
                 if used is not None and players > 0 else None)
        if table is not None and held is not None:
            table = table.join(held_strength(records, held, family.item), on=family.item, how="left")
        families.append((family, table))
    course = course_of.course(records, trajectories) if players > 1 else None
    return DesignerAnalysis(content, players, sources, sources_text, tempo, stats.drama(records, events),
                            tuple(families), course)


# ---------------------------------------------------------------- why a seat wins


def _ci_signed(low: float, high: float) -> str:
    return f"[{low:+.2f}, {high:+.2f}]" if _finite(low) and _finite(high) else "n/a"


def _mean_cell(row: dict | None) -> str:
    if row is None:
        return "n/a"
    return f"{_num(row['mean'])} {_ci_num(row['low'], row['high'])}"


def _source_blocks(d: DesignerAnalysis) -> list[Block]:
    s = d.sources
    if s is None:
        return [Paragraph("Score by source: not measured. The records hold no points_* columns and this game's score "
                          "is not derived from other record columns, so the score cannot be split by source "
                          "(the engine would have to record points by source).", "note")]
    seats = sorted(s.per_seat["seat"].unique().to_list())
    cells = {(r["seat"], r["source"]): r for r in s.per_seat.to_dicts()}
    lead = {r["source"]: r for r in s.lead.to_dicts()} if s.lead is not None else {}
    columns = [Column("Source")] + [Column(f"Seat {seat}", True) for seat in seats]
    if s.lead is not None:
        columns += [Column(f"Seat {s.leader}'s lead", True), Column("95% interval", True),
                    Column("Share of lead", True), Column("t test p", True)]
    order = s.lead["source"].to_list() if s.lead is not None else list(s.sources)
    total = s.total.to_dicts()[0] if s.lead is not None else {}
    # A lead whose interval holds 0 has no meaningful parts: a share of a near-zero lead runs to hundreds of %.
    settled = bool(total) and (total["low"] > 0 or total["high"] < 0)  # False for NaN ends too
    rows, marked = [], []
    for source in order:
        row = [source] + [_mean_cell(cells.get((seat, source))) for seat in seats]
        if s.lead is not None:
            r = lead[source]
            row += [f"{r['mean']:+.2f}", _ci_signed(r["low"], r["high"]), _pct(r["share"]) if settled else "n/a",
                    _p(r["p_value"])]
        rows.append(row)
        marked.append(source == s.top_source)
    blocks: list[Block] = []
    unit = f"n = {s.per_seat['deals'][0]:,} {s.unit}"
    if s.lead is not None:
        top = lead[s.top_source]
        said = (f"The source that makes most of that lead is {s.top_source}: {top['mean']:+.2f} points "
                f"{_ci_signed(top['low'], top['high'])}, {_pct(top['share'])} of the lead." if settled else
                f"That lead's interval holds 0: no seat leads clearly, so its parts are not shown as shares; the "
                f"largest source difference is {s.top_source}: {top['mean']:+.2f} points "
                f"{_ci_signed(top['low'], top['high'])}.")
        blocks.append(Paragraph(
            f"Seat {s.leader} has the highest mean score; it leads the other seats' mean by {total['mean']:+.2f} "
            f"points a game {_ci_signed(total['low'], total['high'])} ({total['method']}, {unit}). " + said, "lead"))
    blocks.append(Table(columns, rows, marked=marked, caption=(
        f"Mean points per game by source and seat with 95% intervals ({s.per_seat['method'][0]}, {unit}; "
        f"the deal is the unit). Sources read: {d.sources_text}."
        + (f" {stats.UNATTRIBUTED}: the score less the sum of the sources." if stats.UNATTRIBUTED in s.sources
           else "")
        + (" Lead: the leading seat's points minus the other seats' mean in the same game, averaged per deal; "
           "share: its part of the whole lead (negative: a source where the leader trails; n/a when the whole "
           "lead's interval holds 0). Highlighted: the "
           "source that makes most of the lead." if s.lead is not None else ""))))
    blocks.append(Plot("score-sources", plots.score_sources(s.per_seat, s.lead, s.leader),
                       "Left: each seat's mean points per game stacked by source. Right: the leading seat's lead per "
                       "source with its 95% interval by deal; the dashed line is no lead."))
    return blocks


def _tempo_blocks(d: DesignerAnalysis) -> list[Block]:
    t = d.tempo
    if t is None:
        return [Paragraph("Tempo: not measured. This game's events have no column that orders play (turn or "
                          "decision) with the acting seat, so turns per seat and who moved last are unknown.", "note")]
    seats = t.turns["seat"].to_list()
    turn_rows = [[f"seat {r['seat']}", _num(r["mean"], 2), _ci_num(r["low"], r["high"]), r["method"]]
                 for r in t.turns.to_dicts()]
    ends = list(dict.fromkeys(t.last_mover["end"].to_list()))
    cells = {(r["end"], r["seat"]): r for r in t.last_mover.to_dicts()}
    last_rows = []
    for end in ends:
        of = next(r["of"] for r in t.last_mover.to_dicts() if r["end"] == end)
        last_rows.append([end, _int(of)] + [
            f"{_pct(cells[(end, seat)]['share'])} {_ci(cells[(end, seat)]['low'], cells[(end, seat)]['high'])} "
            f"({cells[(end, seat)]['games']:,})" for seat in seats])
    facts = [("Games ending on the winner's own move",
              f"{_pct(t.on_winner.rate)} {_ci(t.on_winner.low, t.on_winner.high)} ({t.on_winner.method} 95%), "
              f"{int(t.on_winner.k):,} of {t.on_winner.n:,} games with one winner"),
             ("Games ending on the final score leader's own move",
              f"{_pct(t.on_leader.rate)} {_ci(t.on_leader.low, t.on_leader.high)} ({t.on_leader.method} 95%), "
              f"{int(t.on_leader.k):,} of {t.on_leader.n:,} games with one highest score"),
             ("Columns read", t.columns)]
    top = max(((end, seat) for end in ends if end != "all" for seat in seats),
              key=lambda k: cells[k]["share"] - 1 / len(seats), default=None)
    blocks: list[Block] = []
    if top is not None and len(seats) > 1:
        r = cells[top]
        blocks.append(Paragraph(
            f"{r['games']:,} of {r['of']:,} games that end by {top[0]} end on seat {top[1]}'s move "
            f"({_pct(r['share'])} {_ci(r['low'], r['high'])}); a seat's fair share of last moves would be "
            f"{_pct(1 / len(seats))} if turns were shared evenly.", "lead"))
    blocks += [
        Table([Column("Seat"), Column("Turns per game", True), Column("95% interval", True), Column("Method")],
              turn_rows, caption="Turns a seat took per game: distinct turn indices among its move events"
                                 + _turns_reconciled(t) + "."),
        Table([Column("End"), Column("Games", True)] + [Column(f"Seat {s} moved last", True) for s in seats],
              last_rows, caption="Share of games (per end reason, and all) whose last move was that seat's, with "
                                 "95% intervals and the count of games."),
        Facts(facts),
    ]
    return blocks


def _turns_reconciled(t: stats.Tempo) -> str:
    """How the seats' turns add up to the game length: the turns that hold no move event (setup turns)."""
    if not _finite(t.game_turns):
        return ""
    together = float(t.turns["mean"].sum())
    moves = t.columns.split("(moves: ", 1)[-1].split(")", 1)[0]
    text = f" ({moves}). Together {_num(together, 2)} a game"
    if abs(t.other_turns) < 0.005:
        return text + f", the game length (mean {t.game_turns:.1f} turns)"
    return (text + f"; the game length (mean {t.game_turns:.1f} turns, the records' turns) also counts "
            f"{_num(t.other_turns, 2)} turns a game that hold no move event of a seat (such as setup turns)")


def why_section(d: DesignerAnalysis) -> Section:
    """Score by source (which source makes the leader's lead) and tempo (turns, who moved last)."""
    return Section("why", "Why a seat wins", [Heading("Score by source"), *_source_blocks(d),
                                              Heading("Tempo"), *_tempo_blocks(d)])


# ---------------------------------------------------------------- drama


NO_TRAJECTORIES = ("not measured: this run has no trajectories (each seat's score at every round end), needed for "
                   "lead changes, the comeback rate and score trajectories; runs played since trajectories were "
                   "recorded have them")


def course_text(course: course_of.Course | None) -> str:
    """Lead changes, comebacks and wire-to-wire wins in one line, or why they are not measured."""
    if course is None:
        return NO_TRAJECTORIES
    m = course.lead_changes
    return (f"{_num(m.mean)} lead changes a game {_ci_num(m.low, m.high)} ({m.method}); comebacks (the winner "
            f"trailed at half time) {_pct(course.comeback.rate)} {_ci(course.comeback.low, course.comeback.high)}, "
            f"wire to wire {_pct(course.wire_to_wire.rate)} {_ci(course.wire_to_wire.low, course.wire_to_wire.high)} "
            f"({course.comeback.method} 95%, n = {course.decided:,} games with one winner)")


def drama_facts(dr: stats.Drama, course: course_of.Course | None = None) -> list[tuple[str, str]]:
    """The drama figures as report facts (also one sweep cell's row)."""
    m = dr.margin
    return [
        ("Decisiveness (final margin)",
         f"median {dr.margin_median:g}, quartiles {dr.margin_q1:g} / {dr.margin_q3:g}; mean {_num(m.mean.mean)} "
         f"{_ci_num(m.mean.low, m.mean.high)} ({m.mean.method}); n = {m.games:,} games, {m.stalls_excluded:,} stalls "
         "excluded"),
        ("Close games (won by the smallest margin)",
         f"{_pct(dr.close.rate)} {_ci(dr.close.low, dr.close.high)} ({dr.close.method} 95%)"
         + (f", margin {m.smallest:g}" if m.smallest is not None else "")),
        ("Drawishness (shared first places)", f"{_pct(dr.ties.rate)} {_ci(dr.ties.low, dr.ties.high)} ({dr.ties.method} 95%)"),
        ("Spread of game length",
         f"sd {_num(dr.turns_sd)} turns {_ci_num(dr.turns_sd_low, dr.turns_sd_high)} (bootstrap percentile 95%); "
         f"interquartile range {dr.turns_iqr:g}; coefficient of variation {_num(dr.turns_cv)}"),
        ("Lead changes and comebacks", course_text(course)),
    ]


def feel_table(dr: stats.Drama, course: course_of.Course | None) -> Table:
    """How the game feels, one row per measure: the value, its 95% interval and the method."""
    m, close, ties = dr.margin.mean, dr.close, dr.ties
    rows = []
    if course is not None:
        lc = course.lead_changes
        rows += [["Lead changes per game", _num(lc.mean), _ci_num(lc.low, lc.high), lc.method],
                 *[[label, _pct(p.rate), _ci(p.low, p.high), f"{p.method} 95%, n = {p.n:,}"]
                   for label, p in (("Games with a lead change", course.with_change),
                                    ("Comebacks (the winner trailed at half time)", course.comeback),
                                    ("Wire to wire (the winner never trailed)", course.wire_to_wire))]]
    rows += [["Mean final margin (decisiveness)", _num(m.mean), _ci_num(m.low, m.high), m.method],
             ["Close games (smallest margin)", _pct(close.rate), _ci(close.low, close.high), f"{close.method} 95%"],
             ["Shared first places (drawishness)", _pct(ties.rate), _ci(ties.low, ties.high), f"{ties.method} 95%"],
             ["Game length sd (turns)", _num(dr.turns_sd), _ci_num(dr.turns_sd_low, dr.turns_sd_high),
              "bootstrap percentile 95% (whole deals)"]]
    note = "" if course is not None else " Lead changes and comebacks: " + NO_TRAJECTORIES + "."
    return Table([Column("Measure"), Column("Value", True), Column("95% interval", True), Column("Method")], rows,
                 caption="How the game feels: the course of games (from the trajectories) and their outcome. "
                         "Comebacks and wire to wire count games with one winner and at least two rounds." + note)


def drama_section(d: DesignerAnalysis) -> Section:
    blocks: list[Block] = [
        Paragraph("How decisive, drawish and variable games are, and how the lead moves during a game.", "lead"),
        feel_table(d.drama, d.course),
        Facts(drama_facts(d.drama, d.course)),
    ]
    if d.course is not None:
        blocks.append(Plot("trajectories", plots.score_trajectories(d.course.bands),
                           "Each seat's score at each round end as if the game ended there: the median (line) and "
                           "the 25-75% band over the games still running; rounds reached by fewer than 10% of the "
                           "games are left out. " + PROGRESS_NOTE))
    if d.course is not None and d.course.gap is not None and d.course.gap.height:
        blocks += gap_blocks(d.course.gap)
    if d.course is not None and d.course.bot_bands is not None:
        blocks.append(Plot("trajectories-by-bot", plots.score_trajectories(d.course.bot_bands, by="bot"),
                           "The same per bot kind: each seat-game under the bot that played it, in whatever seat "
                           "(with rotated seats a seat's band above mixes the bots that sat in it); rounds reached "
                           "by fewer than 10% of a bot's seat-games are left out."))
    blocks.append(Plot("margin-distribution", plots.margin_distribution(d.drama.margin.distribution),
                       "Share of games per final margin (first place's score minus second place's; 0 is a shared "
                       "first place, negative a game won on a goal without the best score). Stalls excluded."))
    return Section("drama", "How the game feels", blocks)


def gap_blocks(gap: pl.DataFrame) -> list[Block]:
    """When seat 0's lead (or deficit) first shows, and the figure of the gap per round."""
    first = first_clear_round(gap)
    last = gap.to_dicts()[-1]
    if first is None:
        said = (f"Seat 0's mean gap to the other seats' mean holds 0 in its 95% interval at every round end "
                f"(last shown, round {last['round']}: {last['mean']:+.2f} points {_ci_signed(last['low'], last['high'])}).")
    else:
        said = (f"Seat 0's {'lead' if first['mean'] > 0 else 'deficit'} first shows at round {first['round']}: "
                f"{first['mean']:+.2f} points {_ci_signed(first['low'], first['high'])} over the other seats' mean "
                f"({first['method']}, {first['games']:,} games still running); by round {last['round']} "
                f"{last['mean']:+.2f} {_ci_signed(last['low'], last['high'])}.")
    return [Paragraph(said, "body"),
            Plot("seat-gap", plots.seat_gap(gap, 0, first["round"] if first else None),
                 "Seat 0's score less the mean of the other seats' at each round end (as if the game ended there), "
                 "averaged over the games still running, with its 95% interval by deal; the dotted line marks the "
                 "first round whose interval excludes 0. Rounds reached by fewer than 10% of the games are left "
                 "out. " + PROGRESS_NOTE)]


PROGRESS_NOTE = ("The value is the game engine's progress measure (its score of the position as it stands; "
                 "docs/reports.md says what it is per game).")


# ---------------------------------------------------------------- content strength


def _flag(row: dict) -> str:
    if row["holm"]:
        return "Holm"
    return "BH" if row["bh"] else ""


def family_table(family: Family, table: pl.DataFrame) -> Table:
    """One row per item, sorted by effect (win rate when used minus when not)."""
    item = family.item
    points = family.points is not None and table["mean_points"].is_not_null().any()
    held = "iwd" in table.columns
    rows, marked = [], []
    for r in table.to_dicts():
        row = [str(r[item]), _int(r["used"]), _pct(r["use_rate"]), _pct(r["win_used"]), _pct(r["win_not_used"]),
               _pts(r["difference"]), _ci_pts(r["diff_low"], r["diff_high"]), _num(r["design_effect"], 2),
               _p(r["p_holm"]), _p(r["p_bh"]), _flag(r)]
        if points:
            row.append(_num(r["mean_points"]))
        if held:
            row += [_int(r["held"]) if r["held"] is not None else "0", _pct(r["win_held"]),
                    f"{_pts(r['iwd'])} {_ci_pts(r['iwd_low'], r['iwd_high'])}", _p(r["iwd_holm"])]
        rows.append(row)
        marked.append(bool(_flag(r)))
    columns = [Column("Item"), Column("Used (seat-games)", True), Column("Use rate", True),
               Column("Win when used", True), Column("Win when not", True), Column("Difference (points)", True),
               Column("95% by deal", True), Column("Design effect", True), Column("Holm p", True),
               Column("BH p", True), Column("Flag")]
    if points:
        columns.append(Column(f"Mean {family.unit} per use", True))
    if held:
        columns += [Column("Held (seat-games)", True), Column("Win when held", True),
                    Column("IWD (points) 95% by deal", True), Column("IWD Holm p", True)]
    return Table(columns, rows, marked=marked, caption=(
        f"{family.title}: {family.text}. Sorted by the difference (largest first; n/a: used in every seat-game or in "
        f"none). 95% by deal: Newcombe on counts divided by the design effect (the cluster-robust variance by deal "
        "over the independent one). Holm and Benjamini-Hochberg across the "
        f"{table.height} items of this family; Flag: adjusted p < 0.05. "
        "Observational." + (f" Mean {family.unit} per use: the events column {_points_column(family)} averaged over "
                            "the item's events (not per seat-game)." if points else "")
        + (" Held: seat-games that held the item at any point (dealt into the starting hand, gathered or drawn; "
           f"events column {family.held_item}); win when held is 17lands' GIH WR; IWD, the improvement when drawn, "
           "is that less the win rate of seat-games that never held it (GNS WR), with its 95% interval by deal "
           "(as the difference) and Holm across the items. Also observational: a seat that draws more holds more "
           "of everything." if held else "")))


def _points_column(family: Family) -> str:
    """The points column a family reads, in words (``produced_{item}``: each item's own column)."""
    if "{item}" not in family.points:
        return family.points
    return family.points.replace("{item}", "<item>") + " (each item's own column)"


def family_blocks(d: DesignerAnalysis) -> list[Block]:
    """A heading and a table per family; a note for a family whose columns this run lacks."""
    if not d.families:
        return [Paragraph("This game declares no component family, so content strength is not measured.", "note")]
    blocks: list[Block] = [Paragraph(OBSERVATIONAL, "lead")]
    for family, table in d.families:
        blocks.append(Heading(family.title))
        if table is None or not table.height:
            blocks.append(Paragraph(f"Not measured: this run's events lack what the family needs ({family.text}).",
                                    "note"))
        else:
            blocks.append(family_table(family, table))
    if d.content.missing:
        blocks.append(Paragraph("Needs engine events that do not exist yet: " + "; ".join(d.content.missing) + ".",
                                "note"))
    return blocks


def top_items(d: DesignerAnalysis) -> list[str]:
    """The flagged items (Holm) of every family, for the summary's findings."""
    found = []
    for family, table in d.families:
        if table is None:
            continue
        for r in table.filter(pl.col("holm")).to_dicts():
            found.append(f"{family.title}: {r[family.item]} {_pts(r['difference'])} points "
                         f"{_ci_pts(r['diff_low'], r['diff_high'])}")
    return found


__all__ = ["DESIGNER_METHODS", "DesignerAnalysis", "NO_TRAJECTORIES", "OBSERVATIONAL", "analyse_designer",
           "course_text", "drama_facts", "feel_table",
           "drama_section", "family_blocks", "family_table", "why_section", "top_items"]
