"""Learned evaluations: the phased weights, the learned file, the bots that read it (batched and reference
alike), and the fit of ``glade train`` on records with a known answer."""

from __future__ import annotations

import numpy as np
import pytest

import sims.core.learned as learned
from analysis import learn
from sims.core.learned import PhasedBot, phase_of, phase_weights, read_learned
from sims.core.play import batched_bots, play_batch, play_reference, reference_bots, resolve_bot
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.registry import get_game
from sims.verify import verify
from tests.cli_helpers import glade, one_error_line

VORA_NAMES = ("score", "rival", "near", "specials", "cubes")


def learned_file(path, game="vora", players=2, phases=((0, 1.0, 1.0, 0.0, 1.0, 2.0), (6, 1.0, 0.0, 0.0, 0.0, 0.0)),
                 names=VORA_NAMES):
    lines = [f'game = "{game}"', f"players = {players}", "seed = 1", 'date = "2026-12-07"', 'command = "test"',
             'policy = "greedy"', 'target = "margin"', 'method = "test"', "[fit]", "candidates = 3"]
    for start, *weights in phases:
        lines += ["[[phases]]", f"from_turn = {start}"] + [f"{n} = {w}" for n, w in zip(names, weights)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def learned_dir(tmp_path, monkeypatch):
    """A learned directory of its own: Vora at 2 players, two phases (the tuned greedy's weights to turn 6, then
    the score alone)."""
    directory = tmp_path / "learned"
    directory.mkdir()
    learned_file(directory / "vora-2p.toml")
    monkeypatch.setattr(learned, "learned_dir", lambda: directory)
    return directory


def test_phase_of_counts_from_each_phase_start():
    assert list(phase_of(np.array([0, 5, 6, 7, 20]), [0, 6, 12])) == [0, 0, 1, 1, 2]
    assert phase_of(12, [0, 6, 12]) == 2


def test_flat_weights_give_each_phase_its_weights(learned_dir):
    weights = learned.learned_weights("vora", VORA_NAMES)
    assert weights["learned_phases_2p"] == 2.0 and weights["learned_turn@1_2p"] == 6.0
    assert weights["cubes@0_2p"] == 2.0 and weights["cubes@1_2p"] == 0.0
    phases = phase_weights({"candidates": 6.0} | weights, 2)
    assert [start for start, _ in phases] == [0, 6]
    assert phases[0][1] == {"candidates": 6.0, "score": 1.0, "rival": 1.0, "near": 0.0, "specials": 1.0, "cubes": 2.0}
    assert phases[1][1]["score"] == 1.0 and phases[1][1]["rival"] == 0.0
    with pytest.raises(ConfigError, match="a learned evaluation at 3 players .learned at: 2"):
        phase_weights(weights, 3)


@pytest.mark.parametrize("change, key", [
    (('game = "vora"', 'game = "vorex"'), "game"),
    (("from_turn = 0", "from_turn = 2"), "phases.from_turn"),
    (("from_turn = 6", "from_turn = 0"), "phases.from_turn"),
    (("cubes = 2.0\n", ""), "phases[0].cubes"),
    (("near = 0.0", "near = \"a lot\""), "phases[0].near"),
])
def test_a_bad_learned_file_is_one_error_naming_the_key(tmp_path, change, key):
    path = learned_file(tmp_path / "vora-2p.toml")
    path.write_text(path.read_text().replace(*change, 1))
    with pytest.raises(ConfigError) as error:
        read_learned(path, "vora", VORA_NAMES)
    assert str(path) in str(error.value) and key in str(error.value)


def test_the_learned_bots_resolve_to_the_kinds_with_the_files_weights(learned_dir):
    game = get_game("vora")
    config = game.load_config()
    choice = resolve_bot(game, config, "learned")
    assert choice.kind == "greedy" and choice.weights["cubes@0_2p"] == 2.0
    planner = resolve_bot(game, config, "learned_planner")
    assert planner.kind == "planner" and planner.weights["worth_mean"] == 1.0 and planner.weights["rival@1_2p"] == 0.0
    with pytest.raises(ConfigError, match="a learned evaluation at 3 players"):
        batched_bots(game, game.batched(config, 3), [choice] * 3)


def test_the_phased_greedy_plays_the_plain_greedy_of_each_phase(learned_dir):
    """Up to turn 6 the learned bot is today's greedy (the file's first phase holds its weights): every game's
    actions before turn 6 are the greedy's; with a phase start beyond the game's end all of them are."""
    game = get_game("vora")
    config = game.load_config()
    engine = game.batched(config, 2)
    seeds = game_seeds(3, np.arange(24))
    greedy = [resolve_bot(game, config, "greedy")] * 2
    phased = [resolve_bot(game, config, "learned")] * 2
    plain_state, plain = play_batch(engine, batched_bots(game, engine, greedy), seeds, config.max_turns)
    bots = batched_bots(game, engine, phased)
    assert isinstance(bots[0], PhasedBot) and bots[0].starts == [0, 6]
    state, trace = play_batch(engine, bots, seeds, config.max_turns)
    assert not np.array_equal(plain.actions, trace.actions)  # the second phase changes the play
    early = np.arange(6)  # decision d is in turn d or earlier (every turn holds a decision)
    assert np.array_equal(plain.actions[:, early], trace.actions[:, early])
    late = dict(phased[0].weights) | {"learned_turn@1_2p": 10_000.0}
    _, same = play_batch(engine, batched_bots(game, engine, [phased[0].__class__("x", "greedy", late)] * 2), seeds,
                         config.max_turns)
    assert np.array_equal(plain.actions, same.actions)


def test_the_learned_planner_values_its_rollouts_ends_by_the_phases_horizon_weights(learned_dir):
    path = learned_dir / "vora-2p.toml"
    path.write_text(path.read_text() + "[phases.worth]\n" + "\n".join(
        f"{name} = {value}" for name, value in zip(VORA_NAMES, (0.0, 0.0, 0.0, 0.0, 1.0))) + "\n")
    game = get_game("vora")
    config = game.load_config()
    engine = game.batched(config, 2)
    planner = batched_bots(game, engine, [resolve_bot(game, config, "learned_planner")] * 2)[1]
    first, second = planner.inner
    assert first.horizon is None and second.horizon.weights["cubes"] == 1.0 and second.horizon.weights["score"] == 0
    assert second.weights["score"] == 1.0 and "horizon.cubes" not in second.weights
    state, _ = play_batch(engine, batched_bots(game, engine, [resolve_bot(game, config, "greedy")] * 2),
                          game_seeds(2, np.arange(6)), 8)  # games stopped after 8 turns
    state.done[:] = False
    cubes = state.farms[:, 1].sum(axis=1)
    assert np.array_equal(second.end_worth(state), cubes)  # the worth of seat 1: its cubes alone
    assert np.array_equal(first.end_worth(state, np.arange(6.0)), np.arange(6.0))


@pytest.mark.parametrize("labels", [("learned", "greedy"), ("greedy", "learned", "learned")])
def test_batched_and_reference_learned_bots_play_the_same_games(learned_dir, labels):
    """The reference learned bot (one reference greedy per phase, chosen by the game's turn) plays every game as
    the batched one; the file's second phase (from turn 6) changes the play, so both phases are exercised."""
    path = learned_dir / "vora-3p.toml"
    learned_file(path, players=3)
    game = get_game("vora")
    config = game.load_config()
    players = len(labels)
    engine = game.batched(config, players)
    choices = [resolve_bot(game, config, label) for label in labels]
    seeds = game_seeds(11, np.arange(4))
    state, _ = play_batch(engine, batched_bots(game, engine, choices), seeds, config.max_turns)
    for i, seed in enumerate(seeds):
        reference = play_reference(game.reference(config, players, int(seed)), reference_bots(game, choices),
                                   int(seed), config.max_turns)
        assert reference.snapshot() == engine.snapshot(state, i)
    assert verify("vora", config, players, 8, seed=5, bot_labels=list(labels)).mismatches == 0


def test_the_fit_recovers_known_weights_within_decisions():
    """Outcomes made from known weights by phase plus a decision effect (which the fit must ignore) and noise."""
    rng = np.random.default_rng(4)
    decisions, per = 600, 6
    deal = np.repeat(np.arange(decisions) // 3, per)
    decision = np.repeat(np.arange(decisions) % 3, per)
    turn = np.repeat(rng.integers(0, 20, decisions), per)
    terms = rng.normal(size=(decisions * per, 3))
    truth = np.array([[1.0, -0.5, 0.25], [0.2, 1.0, 0.0]])
    phase = (turn >= np.median(turn[::per])).astype(int)
    outcome = (truth[phase] * terms).sum(axis=1) + np.repeat(rng.normal(0, 50, decisions), per)
    outcome += rng.normal(0, 0.1, outcome.size)
    zero = np.zeros(outcome.size)
    records = learn.Records(deal, decision, turn, np.tile(np.arange(per), decisions), terms, zero, outcome, zero,
                            np.where(np.arange(outcome.size)[:, None] % per == 0, np.nan, terms), zero)
    starts = learn.phase_starts(turn, 2)
    assert starts == (0, int(np.quantile(turn, 0.5)))
    result = learn.fit(records, ("a", "b", "c"), starts, "margin")
    assert result.weights == pytest.approx(truth, abs=0.03)
    assert result.decisions == decisions and result.deals == decisions // 3
    horizon = learn.fit(records, ("a", "b", "c"), starts, "margin", "horizon")  # one candidate a decision left out
    assert horizon.candidates == decisions * (per - 1) and horizon.weights == pytest.approx(truth, abs=0.03)


def test_pairwise_accuracy_of_a_known_decision():
    # one decision, outcomes 3 > 2 > 1 (and a tie of 1 with 1): 3 pairs with different outcomes
    records = learn.Records(np.zeros(4, int), np.zeros(4, int), np.zeros(4, int), np.arange(4), np.zeros((4, 1)),
                            np.zeros(4), np.array([1.0, 2.0, 3.0, 1.0]), np.zeros(4), np.zeros((4, 1)), np.zeros(4))
    deals, accuracy = learn.pair_accuracy(records, np.array([0.0, 5.0, 9.0, 7.0]), "margin")
    # pairs (0,1) right, (0,2) right, (1,2) right, (1,3) wrong, (2,3) right; (0,3) is tied in outcome
    assert list(deals) == [0] and accuracy[0] == pytest.approx(4 / 5)
    _, ties = learn.pair_accuracy(records, np.zeros(4), "margin")
    assert ties[0] == pytest.approx(0.5)


def test_outcomes_margin_and_share():
    game = get_game("vora")
    engine = game.batched(game.load_config(), 3)
    state, _ = play_batch(engine, batched_bots(game, engine, [resolve_bot(game, game.load_config(), "random")] * 3),
                          game_seeds(1, np.arange(4)), 400)
    results = engine.results(state)
    margin, share = learn.outcomes(engine, state, np.array([0, 1, 2, 0]))
    score, rank = results.score, results.rank
    assert margin[1] == pytest.approx(score[1, 1] - (score[1, 0] + score[1, 2]) / 2)
    expect = np.mean([1.0 if rank[2, 2] < rank[2, o] else 0.5 if rank[2, 2] == rank[2, o] else 0.0 for o in (0, 1)])
    assert share[2] == pytest.approx(expect)


def test_the_records_do_not_depend_on_the_batch():
    small = learn.collect("vora", 2, "greedy", 12, 7, sample=0.2, batch_size=5)
    large = learn.collect("vora", 2, "greedy", 12, 7, sample=0.2, batch_size=12)
    assert small.size > 20 and small.linear == small.checked > 0  # Vora's greedy value is linear in its weights
    for name in learn._COLUMNS:
        a, b = getattr(small, name), getattr(large, name)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    assert np.isfinite(small.horizon).all(axis=1).sum() > small.size // 2  # the horizon's terms where games go on


def test_train_writes_a_file_the_learned_bot_reads(tmp_path, learned_dir):
    out = learned_dir / "vora-3p.toml"
    result = glade("train", "vora", "--players", 3, "--games", 30, "--seed", 2, "--sample", 0.2, "--check", 0,
                   "--out", out, "-q")
    assert result.exit_code == 0, result.output
    assert "phase 1 from turn 0" in result.output and f"written to {out}" in result.output
    values = read_learned(out, "vora", VORA_NAMES)
    assert values["players"] == 3 and len(values["phases"]) == 2
    assert "glade train vora --players 3 --games 30 --seed 2" in values["command"]
    choice = resolve_bot(get_game("vora"), get_game("vora").load_config(), "learned")
    assert choice.weights["learned_phases_3p"] == 2.0 and choice.weights["learned_phases_2p"] == 2.0


@pytest.mark.parametrize("game, args, fragments", [
    ("reforest", ("--players", 1), ("--players", "at least 2")),
    ("vora", ("--players", 1), ("--players", "a player count of vora")),
    ("vora", ("--policy", "nobody"), ("--bots", "nobody")),
    ("vora", ("--target", "wins"), ("--target",)),
])
def test_train_refuses_bad_options_with_one_line(tmp_path, game, args, fragments):
    out = tmp_path / "x.toml"
    result = glade("train", game, "--games", 4, "--seed", 1, "--out", out, *args)
    one_error_line(result, *fragments)
    assert not out.exists()


def test_glade_games_and_bench_show_the_learned_bots(learned_dir):
    result = glade("games")
    assert result.exit_code == 0, result.output
    vora = result.output[result.output.index("vora: Vora"):result.output.index("vorex: Vorex")]
    assert "bot      learned: greedy with its weights fitted to game outcomes" in vora
    assert "configs/learned/vora-<P>p.toml at 2 players" in vora and "bot      learned_planner:" in vora
    assert "bot      learned" not in result.output[result.output.index("vorex: Vorex"):]
    from sims.bench import bench

    config = get_game("vora").load_config()
    figures = bench("vora", config, 2, batch_size=8, repeats=1, reference_games=1, kinds=("greedy", "learned"))
    assert figures["batched_learned_gps"] > 0 and figures["reference_decisions"]["learned"] > 0
    assert "batched_learned_gps" not in bench("vora", config, 3, batch_size=8, repeats=1, reference_games=1,
                                              kinds=("learned",))


@pytest.mark.parametrize("stalls, kept", [((0, 0), True), ((3, 1), False)])
def test_a_fit_that_stalls_more_in_self_play_is_not_kept(tmp_path, monkeypatch, stalls, kept):
    """A fit that wins its check but leaves more self-play games unfinished than the policy is not written."""
    monkeypatch.setattr(learn, "check", lambda *args, **kwargs: learn.Interval(0.6, 0.55, 0.65, 10))
    counts = iter(stalls)
    monkeypatch.setattr(learn, "self_play_stalls", lambda *args, **kwargs: next(counts))
    out = tmp_path / "vora-2p.toml"
    result = learn.train("vora", 2, 12, 7, out, sample=0.2, check_games=10)
    assert result.kept == kept and out.exists() == kept and result.stalls == stalls
    assert ("stalls more often than greedy in self-play" in result.describe()) == (not kept)


def test_self_play_stalls_counts_unfinished_games():
    game = get_game("vora")
    choice = resolve_bot(game, game.load_config(), "greedy")
    assert learn.self_play_stalls("vora", 2, choice, np.arange(4), 3) == 0
