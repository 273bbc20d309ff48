"""The designer's report sections: why a seat wins, drama, content strength per item, the skill trace.

Each statistic on a synthetic table whose right answer is known; the sections
on tiny runs of every game and on a toy sweep over bot strengths.
"""

from __future__ import annotations

import textwrap

import numpy as np
import polars as pl
import pytest

from analysis import report as rp
from analysis import stats
from analysis.report.content import content_of, family_events, with_sources
from analysis.report.designer import analyse_designer, drama_section, family_blocks, family_table, why_section
from analysis.report.model import Section
from analysis.sweep import load_sweep, read_sweep, run_sweep
from sims.core.components import ComponentFamily
from sims.core.spec import ConfigError
from sims.records import load_events, load_manifest, load_records, load_trajectories
from sims.registry import get_game
from sims.runner import run
from sims.runspec import RunSpec
from tests.golden_files import assert_golden
from tests import toy_game  # noqa: F401 (registers the toy game)


def records(rows: list[dict], rotations: int = 1) -> pl.DataFrame:
    """Records from per-seat rows (game, seat, score, rank and extra columns); one game a deal unless rotated."""
    frame = pl.DataFrame(rows)
    return frame.with_columns(
        (pl.col("game") // rotations).alias("deal"),
        (pl.col("rank") == 1).alias("win"),
        pl.lit(False).alias("tie"),
        pl.col("turns") if "turns" in frame.columns else pl.lit(10).alias("turns"),
        pl.lit("goal").alias("end") if "end" not in frame.columns else pl.col("end"),
        pl.lit("greedy").alias("bot"),
    )


def two_seat_game(game: int, a0: float, b0: float, a1: float, b1: float, **extra) -> list[dict]:
    s0, s1 = a0 + b0, a1 + b1
    r0, r1 = (1, 2) if s0 > s1 else (2, 1) if s1 > s0 else (1, 1)
    return [dict(game=game, seat=0, score=s0, rank=r0, points_a=a0, points_b=b0, **extra),
            dict(game=game, seat=1, score=s1, rank=r1, points_a=a1, points_b=b1, **extra)]


# ---------------------------------------------------------------- score by source


def test_score_sources_finds_the_source_that_makes_the_lead():
    rng = np.random.default_rng(1)
    rows = []
    for g in range(40):  # seat 0 gets exactly 2 more points of source a; source b is the same for both
        a, b = float(rng.integers(0, 10)), float(rng.integers(0, 10))
        rows += two_seat_game(g, a + 2, b, a, b)
    s = stats.score_sources(records(rows))
    assert s.leader == 0 and s.top_source == "a" and s.unit == "games"
    lead = {r["source"]: r for r in s.lead.to_dicts()}
    assert lead["a"]["mean"] == pytest.approx(2.0) and lead["a"]["share"] == pytest.approx(1.0)
    assert lead["b"]["mean"] == pytest.approx(0.0) and lead["b"]["share"] == pytest.approx(0.0)
    assert s.total["mean"][0] == pytest.approx(2.0)
    seat0 = s.per_seat.filter(pl.col("seat") == 0)
    assert seat0["deals"].to_list() == [40, 40]
    assert stats.UNATTRIBUTED not in s.sources


def test_shares_of_a_lead_whose_interval_holds_zero_are_not_shown():
    from types import SimpleNamespace

    from analysis.report.designer import _source_blocks

    def table(rows: list[dict]) -> list[list[str]]:
        d = SimpleNamespace(sources=stats.score_sources(records(rows)), sources_text="points_a, points_b")
        return next(b for b in _source_blocks(d) if isinstance(b, rp.Table)).rows

    even = [row for g in range(40) for row in two_seat_game(g, 1.0 + g % 3, 1.0, 1.0, 1.0 + g % 3)]
    assert [row[-2] for row in table(even)] == ["n/a", "n/a"]  # seat 0 gains in a what it loses in b: no lead
    ahead = [row for g in range(40) for row in two_seat_game(g, 3.0 + g % 3, 1.0, 1.0 + g % 3, 1.0)]
    assert [row[-2] for row in table(ahead)] == ["100.0%", "0.0%"]  # exactly 2 points of a in every game


def test_score_sources_counts_deals_and_keeps_the_unattributed_rest():
    rows = []
    for g in range(8):  # 4 deals of 2 rotations; the score is 1 more than the sources say
        for row in two_seat_game(g, 3.0, 1.0, 1.0, 1.0):
            rows.append({**row, "score": row["score"] + 1})
    s = stats.score_sources(records(rows, rotations=2))
    assert s.unit == "deals" and s.per_seat["deals"].unique().to_list() == [4]
    assert stats.UNATTRIBUTED in s.sources
    rest = s.per_seat.filter(pl.col("source") == stats.UNATTRIBUTED)["mean"].to_list()
    assert rest == pytest.approx([1.0, 1.0])
    assert stats.score_sources(records(rows).drop("points_a", "points_b")) is None


def test_overgrowth_and_vora_scores_are_split_from_their_record_columns():
    og = records([dict(game=0, seat=0, score=8.0, rank=1, flowers_placed=10, flowers_lost=2),
                  dict(game=0, seat=1, score=5.0, rank=2, flowers_placed=5, flowers_lost=0)])
    derived, text = with_sources("overgrowth", og, {})
    assert "flowers_placed" in text
    assert stats.score_sources(derived).sources == ("flowers_placed", "flowers_lost")  # they add up to the score
    config = {"kinds": [{"name": "pig"}, {"name": "crow"}], "scoring": {"thresholds": [1, 2, 3, 6, 9],
                                                                         "points": [-1.0, 0.0, 1.0, 3.0, 9.0]}}
    vora = records([dict(game=0, seat=0, score=8.0, rank=1, farm_pig=9, farm_crow=1),
                    dict(game=0, seat=1, score=0.0, rank=2, farm_pig=2, farm_crow=0)])
    derived, _ = with_sources("vora", vora, config)
    assert derived["points_pig"].to_list() == [9.0, 0.0] and derived["points_crow"].to_list() == [-1.0, 0.0]
    assert stats.UNATTRIBUTED not in stats.score_sources(derived).sources


# ---------------------------------------------------------------- tempo


def test_tempo_says_who_moved_last_and_counts_turns():
    rows, events = [], []
    for g in range(4):  # seat 0 moves on even turns; games 0-2 end on turn 4 (seat 0), game 3 on turn 5 (seat 1)
        last = 4 if g < 3 else 5
        winner = 0 if g < 3 else 1
        rows += [dict(game=g, seat=s, score=5.0 if s == winner else 3.0, rank=1 if s == winner else 2)
                 for s in (0, 1)]
        events += [dict(game=g, turn=t, seat=t % 2, kind="move") for t in range(last + 1)]
    t = stats.tempo(records(rows), pl.DataFrame(events), "turn")
    all_games = t.last_mover.filter(pl.col("end") == "all").sort("seat")
    assert all_games["games"].to_list() == [3, 1] and all_games["share"].to_list() == [0.75, 0.25]
    assert t.on_winner.k == 4 and t.on_winner.n == 4 and t.on_leader.rate == 1.0
    assert t.turns.sort("seat")["mean"].to_list() == pytest.approx([3.0, 2.25])
    assert stats.tempo(records(rows), pl.DataFrame(events).drop("turn"), "turn") is None


# ---------------------------------------------------------------- drama


def test_drama_measures_margins_ties_and_the_spread_of_length():
    rows = []
    for g, (s0, s1, turns) in enumerate([(5, 4, 10), (6, 5, 12), (9, 6, 20), (4, 4, 14)]):
        rows += [dict(game=g, seat=0, score=float(s0), rank=1, turns=turns),
                 dict(game=g, seat=1, score=float(s1), rank=1 if s0 == s1 else 2, turns=turns)]
    d = stats.drama(records(rows))
    assert d.margin_median == pytest.approx(1.0) and d.margin_q3 == pytest.approx(1.5)
    assert d.ties.k == 1 and d.close.k == 2  # one shared first place; two games won by 1, the smallest margin
    assert d.turns_sd == pytest.approx(np.std([10, 12, 20, 14], ddof=1))
    assert d.turns_sd_low <= d.turns_sd <= d.turns_sd_high
    assert d.turns_iqr == pytest.approx(np.subtract(*np.quantile([10, 12, 20, 14], [0.75, 0.25])))
    assert d.lead_changes is None


def test_the_drama_section_draws_bands_per_bot_when_bots_differ():
    rows, trajectory = [], []
    for g in range(6):  # greedy gains 2 a round, random 1; seats rotate every game
        bots = ("greedy", "random") if g % 2 == 0 else ("random", "greedy")
        for seat, bot in enumerate(bots):
            step = 2.0 if bot == "greedy" else 1.0
            rows.append(dict(game=g, seat=seat, score=3 * step, rank=1 if bot == "greedy" else 2, who=bot))
            trajectory += [dict(game=g, round=r, seat=seat, value=r * step) for r in (1, 2, 3)]
    mixed = records(rows, rotations=2).with_columns(pl.col("who").alias("bot"))
    d = analyse_designer("toy", {}, mixed, None, 2, trajectories=pl.DataFrame(trajectory))
    plots_ = {b.id: b for b in drama_section(d).blocks if isinstance(b, rp.Plot)}
    assert {"trajectories", "trajectories-by-bot"} <= set(plots_)
    assert d.course.bot_bands.filter(pl.col("round") == 3)["median"].to_list() == [6.0, 3.0]  # greedy, random
    labels = [t.get_text() for t in plots_["trajectories-by-bot"].figure.axes[0].get_legend().get_texts()]
    assert labels == ["greedy", "random"]
    one = analyse_designer("toy", {}, records(rows, rotations=2), None, 2, trajectories=pl.DataFrame(trajectory))
    assert "trajectories-by-bot" not in {b.id for b in drama_section(one).blocks if isinstance(b, rp.Plot)}


def test_the_sweep_drama_figure_draws_lead_changes_and_comebacks_per_cell_with_intervals():
    from types import SimpleNamespace

    from analysis import drama as course_of
    from analysis.report.trace import drama_section as cell_drama_section

    def cell(title: str, courses: list[tuple[list[float], list[float]]] | None, baseline: bool = False):
        rows, trajectory = [], []
        for g, (seat0, seat1) in enumerate(courses or [([1, 2], [0, 1])] * 4):
            ranks = (1, 2) if seat0[-1] > seat1[-1] else (2, 1)
            for seat, (values, rank) in enumerate(zip((seat0, seat1), ranks)):
                rows.append(dict(game=g, seat=seat, score=float(values[-1]), rank=rank))
                trajectory += [dict(game=g, round=r + 1, seat=seat, value=float(v)) for r, v in enumerate(values)]
        frame = records(rows)
        course = course_of.course(frame, pl.DataFrame(trajectory)) if courses is not None else None
        return SimpleNamespace(id=title, baseline=baseline, drama=stats.drama(frame), course=course, players=2)

    swingy = [([1, 0, 2], [0, 1, 1])] * 3 + [([0, 2], [1, 1])]  # 2, 2, 2 and 1 lead changes: mean 1.75
    steady = [([1, 2, 3], [0, 1, 1])] * 4  # never a change
    cells = [cell("G1 x B1", steady, baseline=True), cell("G2 x B1", swingy), cell("G3 x B1", None)]
    section = cell_drama_section(cells, "G1 x B1")
    figure = next(b for b in section.blocks if isinstance(b, rp.Plot) and b.id == "cell-drama").figure
    assert [ax.get_title(loc="left").replace("\n", " ") for ax in figure.axes] == ["Mean final margin",
                                                                                   "Shared first places",
                                                                "Game length sd", "Lead changes a game", "Comebacks"]
    lead = figure.axes[3]
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == ["G1 x B1", "G2 x B1", "G3 x B1"]  # titles
    points = {round(float(line.get_ydata()[0])): float(line.get_xdata()[0]) for line in lead.get_lines()
              if line.get_marker() in ("o", "D")}
    assert points == {2: pytest.approx(0.0), 1: pytest.approx(1.75)}  # G3 x B1 (y = 0): no trajectories, no point
    intervals = [line.get_xdata() for line in lead.get_lines() if line.get_marker() in ("None", "") and
                 len(line.get_xdata()) == 2 and line.get_xdata()[0] != line.get_xdata()[1]]
    low, high = cells[1].course.lead_changes.low, cells[1].course.lead_changes.high
    assert any(list(x) == pytest.approx([low, high]) for x in intervals) and low < 1.75 < high
    comebacks = {round(float(line.get_ydata()[0])): float(line.get_xdata()[0]) for line in figure.axes[4].get_lines()
                 if line.get_marker() in ("o", "D")}
    assert comebacks == {2: pytest.approx(0.0), 1: pytest.approx(0.25)}  # the last swingy game: behind at round 1
    assert cells[1].course.comeback.low < 0.25 < cells[1].course.comeback.high
    without = cell_drama_section([cells[2], cell("G4 x B1", None)], "G3 x B1")
    assert len(next(b for b in without.blocks if isinstance(b, rp.Plot)).figure.axes) == 3


# ---------------------------------------------------------------- content strength


def test_item_strength_puts_an_item_only_winners_used_first_with_its_points():
    rows, events = [], []
    for g in range(60):
        rows += [dict(game=g, seat=0, score=1.0, rank=1 if g % 2 else 2),
                 dict(game=g, seat=1, score=1.0, rank=2 if g % 2 else 1)]
        winner = 0 if g % 2 else 1  # seat 0 wins the odd games
        events += [dict(game=g, seat=winner, card="crown", points=3), dict(game=g, seat=0, card="plain", points=1),
                   dict(game=g, seat=1, card="plain", points=1)]
        if g % 3 == 0:
            events.append(dict(game=g, seat=0, card="odd", points=0))
    table = stats.item_strength(records(rows), pl.DataFrame(events), "card", points="points")
    assert table["card"].to_list()[0] == "crown"
    crown = table.row(0, named=True)
    assert crown["win_used"] == 1.0 and crown["win_not_used"] == 0.0 and crown["holm"] and crown["bh"]
    assert crown["mean_points"] == 3.0
    plain = table.filter(pl.col("card") == "plain").row(0, named=True)
    assert np.isnan(plain["difference"]) and table["card"].to_list()[-1] == "plain"  # no comparison: last
    assert crown["p_bh"] <= crown["p_holm"]
    from analysis.report.content import Family
    from analysis.report.designer import family_table

    shown = family_table(Family("Cards", "card", None, "events column card", points="points"), table)
    assert shown.columns[-1].name == "Mean points per use" and shown.rows[0][-1] == "3.00"
    assert "the events column points averaged over the item's events" in shown.caption


def test_a_family_listing_several_items_an_event_used_counts_each():
    family = next(f for f in content_of("vora").families if f.title == "Kinds collected")
    events = pl.DataFrame({"game": [0, 0, 0], "seat": [0, 1, 1], "collected": [3, 0, 4],
                           "collected_kinds": ["pig,crow", "", "crow"]})
    used = family_events(events, family)
    assert used.select("seat", "collected_kinds").rows() == [(0, "pig"), (0, "crow"), (1, "crow")]


def test_production_kinds_count_each_kind_with_its_own_resources():
    """Vorex's production kinds: a draw that produced light and water is a use of each, with the resources of
    that kind (its produced_<kind> column) as its amount; mean resources per use by item."""
    family = next(f for f in content_of("vorex").families if f.title == "Production kinds")
    events = pl.DataFrame({"game": [0, 0, 0, 1], "seat": [0, 1, 0, 0], "produced": ["light,water", "", "water", "light"],
                           "produced_light": [1, 0, 0, 3], "produced_mushroom": [0] * 4,
                           "produced_water": [2, 0, 4, 0], "produced_insect": [0] * 4})
    used = family_events(events, family)
    assert used.select("game", "produced", family.points).rows() == [(0, "light", 1), (0, "water", 2),
                                                                     (0, "water", 4), (1, "light", 3)]
    records = pl.DataFrame({"game": [0, 0, 1, 1], "deal": [0, 0, 1, 1], "seat": [0, 1, 0, 1],
                            "win": [True, False, False, True]})
    table = stats.item_strength(records, used, family.item, points=family.points)
    assert dict(zip(table["produced"], table["mean_points"])) == {"light": 2.0, "water": 3.0}
    assert family.unit == "resources" and f"Mean {family.unit} per use" in [
        c.name for c in family_table(family, table).columns]


def test_family_events_and_a_run_lacking_columns():
    family = content_of("vorex").families[3]  # stump productions, with stump_points
    events = pl.DataFrame({"game": [0, 0], "seat": [0, 1], "stump": ["water", ""], "stump_points": [0, 2]})
    assert family_events(events, family)["stump"].to_list() == ["water"]
    assert family_events(events.drop("stump"), family) is None
    rows = []
    for g in range(6):
        rows += two_seat_game(g, 2.0, float(g % 3), 1.0, 1.0)
    d = analyse_designer("vorex", {}, records(rows).drop("points_a", "points_b"), events.drop("stump"), 2)
    assert d.sources is None and d.tempo is None
    assert all(table is None for _, table in d.families)
    sections = [rp.render_html(rp.Report("run", "t", "", [s], "")) for s in (why_section(d), drama_section(d))]
    assert "not measured" in sections[0] and "Lead changes and comebacks" in sections[1]
    assert "this run has no trajectories" in sections[1]


# ---------------------------------------------------------------- every game's run report


GAMES = {"overgrowth": 2, "vora": 3, "vorex": 3, "reforest": 3}


@pytest.fixture(scope="module")
def game_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("designer-runs")
    for name, players in GAMES.items():
        game = get_game(name)
        run(RunSpec(name, game.load_config(None, ()), ["random"] * players, players, 3, trajectories=True), 12,
            base / name, progress=False)
    return base


@pytest.fixture(scope="module")
def designer_analyses(game_runs):
    """Each game's designer analysis of its tiny run, computed once for the tests below."""
    analyses = {}
    for name, players in GAMES.items():
        path = game_runs / name
        analyses[name] = analyse_designer(name, load_manifest(path), load_records(path), load_events(path), players,
                                          trajectories=load_trajectories(path))
    return analyses


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_gets_the_designer_sections_in_html(designer_analyses, name):
    """The designer sections of each game's tiny run, rendered alone (the whole report is test_report's)."""
    d = designer_analyses[name]
    components = Section("components", "Content", family_blocks(d))
    page = rp.render_html(rp.Report("run", name, "", [why_section(d), drama_section(d), components], ""))
    for section in ("why", "drama", "components"):
        assert f'<section id="{section}">' in page
    titles = [b.text for b in components.blocks if isinstance(b, rp.Heading)]
    assert titles == [family.title for family in content_of(name).families]
    assert all(table is not None for _, table in d.families)  # every declared family found its columns
    assert "observational" in page.lower()
    assert ("Needs engine events that do not exist yet" in page) == bool(content_of(name).missing)
    for family, table in d.families:  # a family that declares points shows them per item
        shown = [column.name for column in family_table(family, table).columns]
        assert (f"Mean {family.unit} per use" in shown) == (family.points is not None), family.title
        assert ("Win when held" in shown and "IWD Holm p" in shown) == (family.held_item is not None), family.title
    assert any(family.held_item is not None for family, _ in d.families) == (name == "reforest")
    assert d.sources is not None and d.tempo is not None  # every game's score splits and its moves are ordered
    assert "moved last" in page and "Lead changes per game" in page  # every game's engine has a progress measure
    assert d.course is not None and d.course.games == 12
    assert any(p.id == "trajectories" for s in (drama_section(d),) for p in s.blocks if isinstance(p, rp.Plot))


@pytest.mark.parametrize("name", list(GAMES))
def test_the_families_declared_by_the_games_give_the_tables_of_before(designer_analyses, name):
    """Families moved from the report code into each GameDefinition: the same tables on the same seeded run
    (tests/golden/families-GAME.csv was written by the report code's own declarations before the move)."""
    d = designer_analyses[name]  # the families do not depend on the trajectories
    assert [f.title for f, _ in d.families] == [f.title for f in get_game(name).families]
    frames = [table.select(pl.lit(family.title).alias("family"), pl.col(family.item).cast(pl.String).alias("item"),
                           "used", "win_used", "win_not_used") for family, table in d.families]
    assert_golden(f"families-{name}.csv", pl.concat(frames).write_csv())


def test_a_family_condition_with_an_unknown_operator_is_refused():
    with pytest.raises(ValueError, match="expected one of"):
        ComponentFamily("Cards", "card", (("event", "=", "play"),))


# ---------------------------------------------------------------- the skill trace


def test_a_sweep_over_bot_strengths_draws_a_skill_trace(tmp_path):
    path = tmp_path / "trace.toml"
    path.write_text(textwrap.dedent("""
        game = "toy"
        players = 2
        bots = ["greedy"]
        seed = 4
        games_per_cell = 60
        baseline = "greedy"

        [[cells]]
        id = "random"
        bots = "random"

        [[cells]]
        id = "greedy"
        bots = "greedy"

        [[cells]]
        id = "bully"
        bots = "bully"
        games = 30
    """))
    run_sweep(path, tmp_path / "out", progress=False)
    data = load_sweep(tmp_path / "out")
    assert [c.status for c in data.cells] == ["done"] * 3
    assert data.cell("bully").records()["deal"].max() == 29  # capped: the first 30 deals
    report = rp.build_sweep_report(tmp_path / "out")
    assert [s.id for s in report.sections][:2] == ["summary", "skill-trace"]
    assert "bully the first 30" in report.section("summary").blocks[0].text
    trace = report.section("skill-trace")
    table = next(b for b in trace.blocks if isinstance(b, rp.Table))
    assert [row[0] for row in table.rows] == ["random", "greedy", "bully"]
    assert any(p.id == "skill-trace-0" for p in report.plots())
    assert '<section id="cell-drama">' in rp.render_html(report)
    flags = report.section("summary").blocks[1].items
    assert any(f.title.startswith("Skill trace: seat 0's share") for f in flags)
    methods = " ".join(item for b in report.section("methods").blocks for item in getattr(b, "items", []))
    assert "Skill trace: in a sweep whose cells differ only in the bot" in methods
    report.close()


def test_a_sweep_cell_games_key_must_be_a_positive_count(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('game = "toy"\nbots = ["greedy", "random"]\nseed = 1\ngames_per_cell = 5\n'
                    '[[cells]]\nid = "a"\ngames = 0\n')
    with pytest.raises(ConfigError, match=r"cells\[0\]\.games"):
        read_sweep(path)


def test_the_shipped_skill_trace_studies_are_valid_sweeps():
    for name in ("overgrowth", "vorex"):
        sweep = read_sweep(f"configs/sweeps/{name}-skill-trace.toml")
        assert "bots" in sweep.axes and sweep.players == 2
        assert any(cell.games for cell in sweep.cells)  # the planner plays fewer deals


def test_the_drama_section_says_when_seat_zeros_lead_first_shows():
    """Seat 0 level for two rounds, then ahead by one more point a round: the report names round 3 and draws the
    gap."""
    rows, trajectory = [], []
    for g in range(30):
        rows += [dict(game=g, seat=0, score=3.0, rank=1), dict(game=g, seat=1, score=0.0, rank=2)]
        trajectory += [dict(game=g, round=r, seat=s, value=float(max(0, r - 2) if s == 0 else 0) + (g % 2) * 0.5)
                       for r in range(1, 6) for s in (0, 1)]
    d = analyse_designer("toy", {}, records(rows), None, 2, trajectories=pl.DataFrame(trajectory))
    section = drama_section(d)
    assert "seat-gap" in {b.id for b in section.blocks if isinstance(b, rp.Plot)}
    said = next(b.text for b in section.blocks if isinstance(b, rp.Paragraph) and "Seat 0's lead" in b.text)
    assert "first shows at round 3: +1.00 points" in said


def test_held_strength_is_the_win_rate_when_held_against_never_held():
    """Two seats, one game a deal: seat 0 holds card A in games 0-5 and wins four of them; seat 1 holds A in games
    6-9 and wins one: GIH WR 5/10. The seat-games that never held A (seat 1 in games 0-5, seat 0 in 6-9) won 2 + 3
    of 10: IWD 0. B is dealt to both seats of every game: no comparison."""
    from analysis.stats.held import held_strength

    rows, held = [], []
    for g in range(10):
        winner = 0 if g in (0, 1, 2, 3, 6, 7, 8) else 1
        rows += [dict(game=g, seat=s, score=float(s == winner), rank=1 if s == winner else 2) for s in (0, 1)]
        held.append(dict(game=g, seat=0 if g < 6 else 1, species="A"))
        held += [dict(game=g, seat=s, species="B") for s in (0, 1)]
    table = held_strength(records(rows), pl.DataFrame(held), "species").sort("species")
    a, b = table.to_dicts()
    assert (a["held"], a["win_held"], a["win_not_held"]) == (10, 0.5, 0.5)  # 4 + 1 of 10; the rest 3 + 2 of 10
    assert a["iwd"] == pytest.approx(0.0) and a["iwd_low"] < 0 < a["iwd_high"]
    assert b["held"] == 20 and np.isnan(b["iwd"])
