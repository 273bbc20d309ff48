"""Sweeps: grid and explicit cells, stable ids, common random numbers, resume, refusals, bad files;
and ``glade play --until-ci``. Mostly on the toy game (tests/toy.toml), one small Overgrowth sweep."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.cli_helpers import glade, one_error_line
from analysis.summary import headline
from analysis.sweep import cell_table, format_cell_table, label, load_sweep, read_sweep, run_sweep
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError, project_root
from sims.runner import Chunk, load_manifest, load_records

HEAD = """
game = "toy"
description = "toy sweep"
bots = ["greedy", "random"]
seed = 11
games_per_cell = 60
"""


def sweep_file(tmp_path, body: str, head: str = HEAD, name: str = "sweep.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(head) + textwrap.dedent(body))
    return path




GOAL_BUMP = """
[grid]
"race.goal" = [10, 14]
"race.bump" = [true, false]
"""


# ---------------------------------------------------------------- the sweep file


def test_grid_is_the_cartesian_product_with_stable_ids(tmp_path):
    sweep = read_sweep(sweep_file(tmp_path, GOAL_BUMP))
    ids = ["race.goal=10,race.bump=true", "race.goal=10,race.bump=false",
           "race.goal=14,race.bump=true", "race.goal=14,race.bump=false"]
    assert [c.id for c in sweep.cells] == ids  # the first axis varies slowest
    assert sweep.cells[1].overrides == ("race.goal=10", "race.bump=false")
    assert sweep.axes == ("race.goal", "race.bump") and sweep.baseline == ids[0]
    assert sweep.players == 2 and sweep.rotations == 1 and sweep.games_per_cell == 60
    again = read_sweep(sweep_file(tmp_path, GOAL_BUMP, name="again.toml"))
    assert [c.id for c in again.cells] == ids


def test_named_values_and_tables_of_keys(tmp_path):
    sweep = read_sweep(sweep_file(tmp_path, """
        baseline = "race=long,limits.max_turns=1000"
        [grid.race]
        short = { goal = 8, die_sides = 4 }
        long = { goal = 20 }
        [grid."limits.max_turns"]
        1000 = 1000
    """))
    assert [c.id for c in sweep.cells] == ["race=short,limits.max_turns=1000", "race=long,limits.max_turns=1000"]
    short = sweep.cells[0]
    assert short.overrides == ("race.goal=8", "race.die_sides=4", "limits.max_turns=1000")
    assert short.labels == {"race": "short", "limits.max_turns": "1000"}
    assert sweep.baseline == "race=long,limits.max_turns=1000"


def test_labels_are_short_and_safe_as_folder_names():
    assert label(5) == "5" and label(True) == "true" and label(0.5) == "0.5" and label("grow") == "grow"
    assert label([1, 2, 3]) == "1+2+3"
    spaces = ["overgrow", "grow", "cast", "spread"] * 2
    assert label(spaces).startswith("list-") and label(spaces) == label(list(spaces))
    assert label(spaces) != label(spaces[::-1])
    assert label("two words").startswith("text-") and label({"a": 1}).startswith("table-")


def test_explicit_cells(tmp_path):
    sweep = read_sweep(sweep_file(tmp_path, """
        baseline = "plain"
        [[cells]]
        set = ["race.goal=10", "race.bump=false"]
        [[cells]]
        id = "plain"
        [[cells]]
        set = ["race={goal = 8, die_sides = 4}"]
    """))
    assert [c.id for c in sweep.cells] == ["race.goal=10,race.bump=false", "plain", "race.goal=8,race.die_sides=4"]
    assert sweep.cells[1].overrides == ()
    assert sweep.cells[2].overrides == ("race.goal=8", "race.die_sides=4")
    assert sweep.baseline == "plain"
    assert sweep.axes == ("race.goal", "race.bump", "race.die_sides")


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        ('colour = "red"\n' + GOAL_BUMP, ["colour", "known keys"]),
        (GOAL_BUMP + '[[cells]]\nset = ["race.goal=8"]\n', ["grid", "not both"]),
        ("[grid]\n", ["grid", "at least one config key"]),
        ('[grid]\n"race.goal" = []\n', ['grid."race.goal"', "non-empty list"]),
        ('[grid]\n"race.goal" = [10, 99999]\n', ['grid."race.goal"', "cell race.goal=99999", "race.goal",
                                                 "an integer from 3 to 100", "99999"]),
        ('[grid]\n"race.goals" = [10]\n', ['grid."race.goals"', "race.goals", "a key of"]),
        ('[[cells]]\nset = ["race.goal=10"]\n[[cells]]\nid = "odd"\nset = ["race.speed=3"]\n',
         ["cells[1].set[0]", "cell odd", "race.speed", "a key of"]),
        ('[[cells]]\nset = ["race.goal"]\n', ["cells[0].set[0]", "KEY=VALUE"]),
        ('[[cells]]\nid = "a b"\n', ["cells[0].id", "folder name"]),
        ('[[cells]]\nid = "a"\n[[cells]]\nid = "a"\n', ["cells", "distinct cell ids"]),
        ('baseline = "nope"\n' + GOAL_BUMP, ["baseline", "one of the cell ids", "nope"]),
        ('[grid."race.goal"]\n"a b" = 10\n', ['grid."race.goal"."a b"', "folder name"]),
    ],
)
def test_a_bad_sweep_file_is_one_error_line_naming_file_and_key(tmp_path, body, fragments):
    path = sweep_file(tmp_path, body)
    line = one_error_line(glade("sweep", path, "--out", tmp_path / "out", "--no-progress"))
    assert line.startswith(f"error: {path}: ")
    for fragment in fragments:
        assert fragment in line, line
    assert not (tmp_path / "out" / "cells").exists()  # nothing is played before every cell's config loads


@pytest.mark.parametrize(
    ("head", "fragments"),
    [
        (HEAD.replace("seed = 11\n", ""), ["seed", "to be set"]),
        (HEAD.replace('"toy"', '"chess"'), ["game", "chess", "toy"]),
        (HEAD.replace('["greedy", "random"]', '["greedy", "wizard"]'), ["bots", "wizard"]),
        (HEAD + "players = 3\n", ["bots", "3 comma-separated bots"]),
        (HEAD.replace("games_per_cell = 60", "games_per_cell = 0"), ["games_per_cell", "at least 1"]),
    ],
)
def test_bad_top_level_values(tmp_path, head, fragments):
    path = sweep_file(tmp_path, GOAL_BUMP, head=head)
    with pytest.raises(ConfigError) as error:
        run_sweep(path, tmp_path / "out", progress=False)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


# ---------------------------------------------------------------- running


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The goal x bump grid, played once (3 chunks a cell)."""
    folder = tmp_path_factory.mktemp("sweep")
    path = sweep_file(folder, GOAL_BUMP)
    summary = run_sweep(path, folder / "out", batch_size=20, progress=False)
    return path, folder / "out", summary


def test_every_cell_plays_the_same_deals(played):
    _, out, summary = played
    assert summary.played == 4 * 60 and [c.games for c in summary.cells] == [60] * 4
    data = load_sweep(out)
    seeds = game_seeds(11, np.arange(60))
    records = [cell.records() for cell in data.cells]
    for frame in records:
        per_deal = frame.filter(pl.col("seat") == 0).sort("deal")
        assert np.array_equal(per_deal["seed"].to_numpy(), seeds)
    assert not records[0].equals(records[2])  # the goal changes the games


def test_a_key_that_changes_no_game_gives_identical_records(tmp_path):
    path = sweep_file(tmp_path, """
        [grid]
        "bots.greedy.bump" = [2.0, 50.0]
        "limits.max_turns" = [1000, 5000]
    """, head=HEAD.replace('["greedy", "random"]', '["random", "random"]'))
    run_sweep(path, tmp_path / "out", progress=False)
    data = load_sweep(tmp_path / "out")
    first = data.cells[0].records()
    assert first["end"].unique().to_list() == ["goal"]  # no stall: max_turns is far above the game length
    for cell in data.cells[1:]:
        assert_frame_equal(cell.records(), first)
        assert_frame_equal(cell.events(), data.cells[0].events())
    hashes = [cell.config_hash for cell in data.cells]
    assert len(set(hashes)) == 4
    assert [load_manifest(cell.path)["config_hash"] for cell in data.cells] == hashes


def test_load_sweep_describes_the_cells(played):
    path, out, _ = played
    data = load_sweep(out)
    assert data.game == "toy" and data.bots == ("greedy", "random") and data.seed == 11
    assert data.games_per_cell == 60 and data.axes == ("race.goal", "race.bump") and data.base == {}
    assert [c.id for c in data.cells] == [c.id for c in read_sweep(path).cells]
    assert data.baseline is data.cells[0] and [c.baseline for c in data.cells] == [True, False, False, False]
    cell = data.cell("race.goal=14,race.bump=false")
    assert cell.overrides == {"race.goal": 14, "race.bump": False}
    assert cell.labels == {"race.goal": "14", "race.bump": "false"} and cell.status == "done"
    assert cell.path == out / "cells" / cell.id and cell.manifest()["config"]["race"]["goal"] == 14
    assert cell.records().height == 120 and cell.events() is not None
    everything = data.records()
    assert everything.columns[0] == "cell" and everything.height == 4 * 120
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["sweep_text"] == path.read_text() and len(manifest["sweep_hash"]) == 16
    assert [c["status"] for c in manifest["cells"]] == ["done"] * 4
    assert set(manifest["versions"]) >= {"glade", "python"}
    table = cell_table(data)
    assert table["games"].to_list() == [60] * 4
    assert (table["seat0_low"] <= table["seat0_share"]).all()
    assert (table["seat0_share"] <= table["seat0_high"]).all()
    for row, cell in zip(table.iter_rows(named=True), data.cells):  # each cell's own headline, as glade play says it
        assert row["headline"] == headline(cell.records(), cell.players)[0]


def test_resume_plays_only_the_lost_chunk(tmp_path, played):
    path, original, _ = played
    out = tmp_path / "out"
    run_sweep(path, out, batch_size=20, progress=False)
    cell_id = "race.goal=10,race.bump=false"
    (out / "cells" / cell_id / "records" / Chunk(0, 20, 40).name).unlink()
    assert load_sweep(out).cell(cell_id).status == "partial"
    summary = run_sweep(path, out, batch_size=7, progress=False)
    assert summary.played == 20 and [c.played for c in summary.cells] == [0, 20, 0, 0]
    for cell in load_sweep(out).cells:
        assert_frame_equal(cell.records(), load_records(original / "cells" / cell.id))
    again = run_sweep(path, out, progress=False)
    assert again.played == 0 and again.games_per_second is None


def test_more_games_per_cell_extend_every_cell_and_fewer_keep_them(tmp_path):
    path = sweep_file(tmp_path, GOAL_BUMP)
    run_sweep(path, tmp_path / "out", games_per_cell=30, progress=False)
    summary = run_sweep(path, tmp_path / "out", games_per_cell=50, progress=False)
    assert [c.played for c in summary.cells] == [20] * 4 and summary.games_per_cell == 50
    kept = run_sweep(path, tmp_path / "out", games_per_cell=10, progress=False)
    assert kept.played == 0 and kept.games_per_cell == 50
    assert load_sweep(tmp_path / "out").games_per_cell == 50


@pytest.mark.parametrize(
    ("head", "body", "key"),
    [
        (HEAD.replace("seed = 11", "seed = 12"), GOAL_BUMP, "seed"),
        (HEAD.replace('"greedy", "random"', '"random", "greedy"'), GOAL_BUMP, "bots"),
        (HEAD + 'base = ["race.die_sides=4"]\n', GOAL_BUMP, "base"),
        (HEAD, GOAL_BUMP.replace("[10, 14]", "[10, 16]"), "cells"),
        (HEAD + "rotate_seats = true\n", GOAL_BUMP, "rotate_seats"),
    ],
)
def test_a_different_sweep_on_the_same_out_is_refused(tmp_path, head, body, key):
    run_sweep(sweep_file(tmp_path, GOAL_BUMP), tmp_path / "out", games_per_cell=5, progress=False)
    other = sweep_file(tmp_path, body, head=head, name="other.toml")
    line = one_error_line(glade("sweep", other, "--out", tmp_path / "out", "--no-progress"))
    assert line.startswith(f"error: {tmp_path / 'out' / 'sweep.json'}: {key}: expected ")
    assert "use another --out" in line


def test_a_new_description_or_baseline_is_the_same_sweep(tmp_path):
    run_sweep(sweep_file(tmp_path, GOAL_BUMP), tmp_path / "out", games_per_cell=5, progress=False)
    head = HEAD.replace("toy sweep", "renamed") + 'baseline = "race.goal=14,race.bump=true"\n'
    summary = run_sweep(sweep_file(tmp_path, GOAL_BUMP, head=head, name="b.toml"), tmp_path / "out",
                        games_per_cell=5, progress=False)
    assert summary.played == 0
    assert load_sweep(tmp_path / "out").baseline.id == "race.goal=14,race.bump=true"


def test_a_changed_game_config_is_refused(tmp_path, monkeypatch):
    path = sweep_file(tmp_path, GOAL_BUMP)
    run_sweep(path, tmp_path / "out", games_per_cell=5, progress=False)
    from tests import toy_game

    changed = tmp_path / "toy.toml"
    changed.write_text(toy_game.TOY_TOML.read_text().replace("die_sides = 6", "die_sides = 5"))
    monkeypatch.setattr(toy_game, "TOY_TOML", changed)
    with pytest.raises(ConfigError, match=r"sweep\.json: cells\.race\.goal=10,race\.bump=true\.config_hash: "):
        run_sweep(path, tmp_path / "out", games_per_cell=5, progress=False)


# ---------------------------------------------------------------- the command line


def test_glade_sweep_prints_the_cell_table(tmp_path):
    path = sweep_file(tmp_path, GOAL_BUMP)
    result = glade("sweep", path, "--out", tmp_path / "out", "--games-per-cell", 40, "--jobs", 2)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "toy: toy sweep" in out and "4 cells x 40 deals, the same deals in every cell" in out
    assert "seat 0 share [95%]" in out and "* baseline; seat 0 share: the headline's" in out
    rows = [line for line in out.splitlines() if line.startswith("race.goal=")]
    assert len(rows) == 4 and rows[0].split()[:3] == ["race.goal=10,race.bump=true", "*", "40"]
    assert "speed  160 games" in out
    assert "cell 4/4 race.goal=14,race.bump=false: 40 games" in result.stderr  # a line per finished cell
    again = glade("sweep", path, "--out", tmp_path / "out", "--games-per-cell", 40, "--no-progress")
    assert again.exit_code == 0 and "nothing new to play" in again.stdout
    resumed = glade("sweep", path, "--out", tmp_path / "out", "--games-per-cell", 40)  # progress on, nothing to play
    assert resumed.exit_code == 0, resumed.output
    assert "cell 4/4 race.goal=14,race.bump=false: 40 games (all on disk)" in resumed.stderr


def test_overgrowth_sweep(tmp_path):
    path = sweep_file(tmp_path, """
        [grid.board]
        5x5 = { rows = 5, columns = 5 }
        7x7 = { rows = 7, columns = 7 }
        [grid.track]
        default = { spaces = ["overgrow", "grow", "cast", "spread", "overgrow", "grow", "cast", "spread"] }
    """, head='game = "overgrowth"\nbots = ["greedy", "random"]\nseed = 3\ngames_per_cell = 12\n')
    run_sweep(path, tmp_path / "out", progress=False)
    data = load_sweep(tmp_path / "out")
    assert [c.id for c in data.cells] == ["board=5x5,track=default", "board=7x7,track=default"]
    small, large = (c.records() for c in data.cells)
    assert small.height == large.height == 24
    assert small["seed"].to_list() == large["seed"].to_list()
    assert data.cells[0].manifest()["config"]["board"]["rows"] == 5
    assert small["turns"].mean() < large["turns"].mean()


def test_the_ready_made_overgrowth_study_loads():
    from analysis.sweep import cell_configs
    from sims.core.spec import project_root

    sweep = read_sweep(project_root() / "configs" / "sweeps" / "overgrowth-board-track.toml")
    assert len(sweep.cells) == 9 and sweep.baseline == "board=7x7,track=default"
    assert not sweep.rotate_seats and sweep.bots == ("greedy", "greedy")
    configs = cell_configs(sweep)
    assert {c.rows * c.columns for c in configs} == {25, 49, 63}


# ---------------------------------------------------------------- glade play --until-ci


def test_until_ci_stops_at_the_target_and_extends_the_run(tmp_path):
    out = tmp_path / "run"
    result = glade("play", "toy", "--games", 100, "--seed", 1, "--bots", "random,random", "--until-ci", 0.05,
                   "--batch-size", 100, "--out", out)
    assert result.exit_code == 0, result.output
    deals = load_manifest(out)["games"]
    assert 100 < deals < 1000 and deals % 100 == 0
    assert f"reached the target after {deals:,} deals" in result.stdout
    final = float(" ".join(result.stdout.split()).split("(largest ")[1].split(")")[0])
    assert final <= 0.05
    records = load_records(out)
    assert records["game"].n_unique() == deals
    from analysis.stats import max_half_width, seat_advantage

    seat0 = seat_advantage(records).seats.row(0, named=True)  # the headline's share and interval
    assert max(seat0["share_high"] - seat0["share"], seat0["share"] - seat0["share_low"]) >= final - 1e-9
    assert (seat0["share_high"] - seat0["share_low"]) / 2 == pytest.approx(final, abs=1e-4)
    assert result.stderr.count("until-ci: ") == deals // 100  # one line per step
    # The run before the last step was still too wide.
    assert max_half_width(records.filter(pl.col("deal") < deals - 100)) > 0.05


def test_until_ci_stops_at_max_games(tmp_path):
    out = tmp_path / "run"
    result = glade("play", "toy", "--games", 50, "--seed", 1, "--bots", "greedy,random", "--until-ci", 0.01,
                   "--max-games", 130, "--batch-size", 40, "--jobs", 2, "--out", out, "--json", "--no-progress")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    until = data["until_ci"]
    assert until["reached"] is False and until["deals"] == 130 and until["half_width"] > 0.01
    assert [deals for deals, _ in until["steps"]] == [50, 130]  # steps of batch size x jobs, capped
    assert data["games"] == 130 and load_manifest(out)["games"] == 130
    text = glade("play", "toy", "--games", 50, "--seed", 1, "--bots", "greedy,random", "--until-ci", 0.01,
                 "--max-games", 130, "--out", out, "--no-progress")
    assert "stopped at --max-games 130 after 130 deals before reaching the target" in text.stdout


def test_until_ci_bad_options(tmp_path):
    common = ["play", "toy", "--games", 50, "--seed", 1, "--bots", "greedy,random", "--out", tmp_path / "r"]
    assert "--max-games" in one_error_line(glade(*common, "--max-games", 100))
    assert "--max-games" in one_error_line(glade(*common, "--until-ci", 0.05, "--max-games", 10))
    assert "--until-ci" in one_error_line(glade(*common, "--until-ci", 0))


# ---------------------------------------------------------------- players and bots as axes

PLAYERS_AXIS = """
game = "toy"
bots = ["greedy"]
seed = 4
games_per_cell = 40

[grid]
players = [2, 3]
"race.goal" = [10, 14]
"""


def test_players_axis_plays_each_cell_at_its_count_with_the_same_seeds(tmp_path):
    path = sweep_file(tmp_path, PLAYERS_AXIS, head="")
    sweep = read_sweep(path)
    assert [c.id for c in sweep.cells][:2] == ["players=2,race.goal=10", "players=2,race.goal=14"]
    assert [c.overrides for c in sweep.cells][2] == ("race.goal=10",)  # players is not a config key
    run_sweep(path, tmp_path / "out", progress=False)
    data = load_sweep(tmp_path / "out")
    for cell in data.cells:
        records = cell.records()
        assert records["seat"].max() + 1 == cell.players
        assert cell.bots == ("greedy",) * cell.players
        assert sorted(records["seed"].unique().to_list()) == sorted(int(s) for s in game_seeds(4, np.arange(40)))


def test_bots_axis_takes_lineups_as_text_or_lists(tmp_path):
    sweep = read_sweep(sweep_file(tmp_path, """
    [grid.bots]
    mirror = "greedy,greedy"
    mixed = ["greedy", "random"]
    """))
    assert [c.id for c in sweep.cells] == ["bots=mirror", "bots=mixed"]
    assert [sweep.cell_bots(c) for c in sweep.cells] == [["greedy", "greedy"], ["greedy", "random"]]


def test_explicit_cells_may_set_players_and_bots(tmp_path):
    sweep = read_sweep(sweep_file(tmp_path, """
    [[cells]]
    id = "duo"
    [[cells]]
    id = "trio"
    players = 3
    bots = "greedy,random,random"
    """))
    assert [(sweep.cell_players(c), sweep.cell_bots(c)) for c in sweep.cells] == [
        (2, ["greedy", "random"]), (3, ["greedy", "random", "random"])]


@pytest.mark.parametrize("body, fragments", [
    ('[grid]\nplayers = [2, 5]\n', ["players (cell players=5)", "a player count of toy: 2, 3"]),
    ('[grid]\nplayers = [2, "x"]\n', ['grid.players', "a player count"]),
    ('[grid]\nplayers = [3]\n', ["bots (cell players=3)", "3 comma-separated bots"]),
    ('[grid]\nbots = ["greedy,wizard"]\n', ["bots (cell bots=", "wizard"]),
])
def test_bad_players_or_bots_axes_name_the_cell(tmp_path, body, fragments):
    path = sweep_file(tmp_path, body)
    with pytest.raises(ConfigError) as error:
        from analysis.sweep import cell_configs
        cell_configs(read_sweep(path))
    message = str(error.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def test_explicit_cells_cross_a_grid_of_players(tmp_path):
    sweep = read_sweep(sweep_file(tmp_path, """
    bots = ["greedy"]
    seed = 1
    games_per_cell = 10
    [grid]
    players = [2, 3]
    [[cells]]
    id = "short"
    set = ["race.goal=10"]
    [[cells]]
    id = "long"
    set = ["race.goal=14"]
    """, head='game = "toy"\n'))
    assert [c.id for c in sweep.cells] == ["players=2,short", "players=2,long", "players=3,short", "players=3,long"]
    assert sweep.axes == ("players", "cell")
    assert [c.labels for c in sweep.cells][3] == {"players": "3", "cell": "long"}
    assert [sweep.cell_players(c) for c in sweep.cells] == [2, 2, 3, 3]
    assert sweep.cells[1].overrides == ("race.goal=14",)


def test_a_grid_of_config_keys_beside_cells_is_refused(tmp_path):
    path = sweep_file(tmp_path, """
    [grid]
    "race.goal" = [10]
    [[cells]]
    set = ["race.goal=14"]
    """)
    with pytest.raises(ConfigError, match="may only hold players and bots"):
        read_sweep(path)


def test_label_template_names_cells_for_reports(tmp_path):
    path = sweep_file(tmp_path, 'label = "goal {race.goal} / bump {race.bump}"\n' + GOAL_BUMP)
    sweep = read_sweep(path)
    assert [c.title for c in sweep.cells][:2] == ["goal 10 / bump true", "goal 10 / bump false"]
    run_sweep(path, tmp_path / "out", games_per_cell=10, progress=False)
    data = load_sweep(tmp_path / "out")
    assert data.cells[3].title == "goal 14 / bump false"
    text = format_cell_table(cell_table(data))  # the terminal table names cells as the reports do
    assert "goal 14 / bump false" in text and "race.goal=14" not in text


def test_label_template_with_an_unknown_axis_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"label: expected \{axis\} names of the cell's axes: race.goal, race.bump"):
        read_sweep(sweep_file(tmp_path, 'label = "{race.goal} x {board}"\n' + GOAL_BUMP))


@pytest.mark.parametrize("path", sorted((project_root() / "configs" / "sweeps").glob("*.toml")), ids=lambda p: p.stem)
def test_every_shipped_study_reads_and_its_cells_load(path):
    from analysis.sweep import cell_configs

    sweep = read_sweep(path)
    assert len(cell_configs(sweep)) == len(sweep.cells) > 1


def test_cells_of_list_index_keys_have_folder_names_with_brackets_that_load(tmp_path):
    """polars must not read ``[1]`` in a cell's folder name as a glob pattern."""
    from analysis.report import build_sweep_report

    body = """
    game = "toy"
    bots = ["greedy", "random"]
    seed = 2
    games_per_cell = 10
    [grid]
    "race.goal" = [10, 12]
    """
    path = sweep_file(tmp_path, body, head="", name="brackets.toml")
    run_sweep(path, tmp_path / "out[1]", progress=False)
    data = load_sweep(tmp_path / "out[1]")
    assert len(data.cells) == 2 and all(cell.records().height == 20 for cell in data.cells)
    build_sweep_report(tmp_path / "out[1]").close()
