"""Overgrowth: a two-player race to grow a line of flowers between two shaded areas."""

from sims.core.components import ComponentFamily
from sims.core.engine import BotSpec, GameDefinition, GoldenGame, VerifyRun
from sims.overgrowth import config, render


def _batched(cfg: config.OvergrowthConfig, players: int):
    """Overgrowth is two-player only: its engines take no player count."""
    from sims.overgrowth.rules import OvergrowthEngine

    return OvergrowthEngine(cfg)


def _reference(cfg: config.OvergrowthConfig, players: int, seed: int):
    from sims.overgrowth.reference import OvergrowthGame

    return OvergrowthGame(cfg)


GAME = GameDefinition(
    name="overgrowth",
    title="Overgrowth",
    compile_seconds=10,  # CPU s of a cold compile of every bot's kernels: make compile-profile GAME=overgrowth
    player_counts=(2,),
    load_config=config.load,
    batched=_batched,
    reference=_reference,
    bots={
        "random": BotSpec("random", "sims.core.bots:RandomBot", "sims.overgrowth.reference_bots:ReferenceRandomBot",
                          "uniform among legal actions"),
        "greedy": BotSpec("greedy", "sims.overgrowth.bots:GreedyBot", "sims.overgrowth.reference_bots:ReferenceGreedyBot",
                          "one ply: immediate win, else connection distances and flower count"),
        "planner": BotSpec("planner", "sims.overgrowth.bots:PlannerBot", None,
                           "rollouts: the best greedy candidates, each played out a few turns by greedy play"),
    },
    render_reference=render.render_game,
    render_compact=render.compact,
    describe_action=lambda game, action: render.describe_action(game.config, action, game.action_kind(action)),
    describe="2 players; 7x7 board by default; advanced variant: rules.orthogonal_connection",
    components=("kind", config.ACTION_KINDS),
    families=(
        ComponentFamily("Actions", "kind", (("kind", "in", config.ACTION_KINDS),),
                        "events column kind (overgrow, grow, cast, spread; first placements and passes left out); "
                        "points: the flowers the action put on the board, the mover's score change (an overgrow "
                        "also takes one of the opponent's; events column points)", points="points"),
    ),
    golden=(
        GoldenGame("overgrowth-seed1-game0-greedy-random.txt", 2, 1, 0, ("greedy", "random"), rotate_seats=True),
        GoldenGame("overgrowth-seed2-game1-planner-greedy.txt", 2, 2, 1, ("planner", "greedy"), rotate_seats=True),
    ),
    verify_runs=(
        VerifyRun(2, 300, seed=3),
        VerifyRun(2, 600, seed=3, slow=True),
        VerifyRun(2, 160, seed=4, overrides=("rules.orthogonal_connection=true",)),
        VerifyRun(2, 160, seed=4, overrides=("board.rows=5", "board.columns=6", "rules.flowers=12", "track.moves=[1,2]")),
        VerifyRun(2, 160, seed=4, overrides=("board.rows=8", "board.columns=8", "board.shaded_width=1",
                                             "rules.overgrow_sides=3", "rules.cast_distance=2")),
        # more flowers than cells: some games end with nobody able to move (rules §6.3)
        VerifyRun(2, 200, seed=5, bots=("greedy", "greedy"),
                  overrides=("setup.head_start_cells=[[3, 0]]", "rules.flowers=35")),
    ),
)
