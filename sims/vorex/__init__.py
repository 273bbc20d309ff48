"""Vorex: grow a shared hex forest from tiles and bloom carnivorous flowers on its stumps (solo against the weed)."""

from sims.core.components import ComponentFamily
from sims.core.engine import BotSpec, GameDefinition, GoldenGame, VerifyRun
from sims.vorex import config, render


# The choices the events name in their kind column that are design components (setup and forced moves left out).
ACTION_KINDS = ("draw", "expand", "bloom", "bonus_expand", "bonus_bloom")


def _seats(players: int) -> int:
    """Solo play seats the weed, an opponent of the game's own."""
    return 2 if players == 1 else players


GAME = GameDefinition(
    name="vorex",
    title="Vorex",
    compile_seconds=45,  # CPU s of a cold compile of every bot's kernels: make compile-profile GAME=vorex
    player_counts=(1, 2, 3, 4),
    load_config=config.load,
    batched="sims.vorex.rules:VorexEngine",
    reference="sims.vorex.reference:VorexGame",
    bots={
        "random": BotSpec("random", "sims.core.bots:RandomBot", "sims.vorex.reference_bots:ReferenceRandomBot",
                          "uniform among legal actions"),
        "greedy": BotSpec("greedy", "sims.vorex.bots:GreedyBot", "sims.vorex.reference_bots:ReferenceGreedyBot",
                          "one ply: points, objective gain, production, resources, tiles"),
        "planner": BotSpec("planner", "sims.vorex.bots:PlannerBot", None,
                           "rollouts: the best greedy candidates, each played on by greedy bots"),
    },
    render_reference=render.render_game,
    render_compact=render.compact,
    describe_action=lambda game, action: render.describe_action(game.config, action),
    describe="1 (solo against the weed, a seat of its own) to 4 players; 26 forest tiles, 13 flowers each",
    components=("kind", ACTION_KINDS),
    families=(
        ComponentFamily("Action kinds", "kind",
                        (("kind", "in", ACTION_KINDS),),
                        "events column kind (the game's declared design components)"),
        ComponentFamily("Tiles placed", "tile", (("kind", "in", ("setup_place", "expand", "bonus_expand")),
                                                 ("tile", "!=", "")),
                        "events column tile on events with kind setup_place, expand or bonus_expand; points: the "
                        "score change the placement caused its seat", points="points"),
        ComponentFamily("Tiles bloomed", "tile", (("kind", "in", ("bloom", "bonus_bloom")), ("tile", "!=", "")),
                        "events column tile on events with kind bloom or bonus_bloom; points: the score change the "
                        "bloom caused its seat", points="points"),
        ComponentFamily("Stump productions", "stump", (("stump", "!=", ""),),
                        "events column stump (what a stump produced), points from stump_points",
                        points="stump_points"),
        ComponentFamily("Production kinds", "produced", (("produced", "!=", ""),),
                        "events column produced (the kinds whose production stumps holding the seat's flowers "
                        "produced in a draw, an action or an automatic bonus draw; each kind a use); resources: "
                        "what that kind's stumps took from the supply (produced_<kind>). The game scores no "
                        "production: it pays for blooms", points="produced_{item}", separator=",",
                        unit="resources"),
    ),
    seats=_seats,
    house_bot="greedy",
    golden=(
        GoldenGame("vorex-seed2-game1-greedy-random.txt", 2, 2, 1, ("greedy", "random"), rotate_seats=True),
        GoldenGame("vorex-solo-seed4-game0-greedy-weed-random.txt", 1, 4, 0, ("greedy", "random")),
    ),
    # Random play at 4 players takes the reference engine ~1 minute for 300 games: 60 in make test.
    verify_runs=tuple(VerifyRun(players, games, seed=5, bots=("random",) * _seats(players), jobs=2, slow=games > 60)
                      for games in (60, 300) for players in (1, 2, 3, 4)) + (
        VerifyRun(1, 12, seed=9, bots=("greedy", "greedy")),
        VerifyRun(2, 12, seed=9, bots=("greedy", "random")),
        VerifyRun(3, 12, seed=9, bots=("random", "greedy", "random")),
        # no light and no resources left in the supply after setup, flowers enough to fill the forest: most games
        # end blocked as soon as nobody can bloom (rules §7.3), some a round later (§7.2)
        VerifyRun(4, 20, seed=7, bots=("random",) * 4,
                  overrides=("rules.flowers=40", "resources.supply={ light = 16, mushroom = 4, water = 4, insect = 4 }")),
    ),
)
