"""Vora: push cubes into a shared meadow, collect lines and families into your farm."""

from sims.core.components import ComponentFamily
from sims.core.engine import BotSpec, GameDefinition, GoldenGame, VerifyRun
from sims.vora import config, render

# The blocks of actions the events name that are design components: the actions and the specials.
BLOCKS = ("push", "double", "devour", "wolf", "pick_up", "fly_swap", "dig", "pick", "steal", "decline")

GAME = GameDefinition(
    name="vora",
    title="Vora",
    compile_seconds=20,  # CPU s of a cold compile of every bot's kernels: make compile-profile GAME=vora
    player_counts=(2, 3, 4),
    load_config=config.load,
    batched="sims.vora.rules:VoraEngine",
    reference="sims.vora.reference:VoraGame",
    bots={
        "random": BotSpec("random", "sims.core.bots:RandomBot", "sims.vora.reference_bots:ReferenceRandomBot",
                          "uniform among legal actions"),
        "greedy": BotSpec("greedy", "sims.vora.bots:GreedyBot", "sims.vora.reference_bots:ReferenceGreedyBot",
                          "one ply on every decision: my family-score change minus the best opponent's, "
                          "plus the cubes and from-farm specials in my farm (weights score, rival, near, specials, "
                          "cubes)"),
        "planner": BotSpec("planner", "sims.vora.bots:PlannerBot", None,
                           "rollouts: the best greedy candidates, each played on by greedy bots to my next turn"),
    },
    render_reference=render.render_game,
    render_compact=render.compact,
    describe_action=lambda game, action: render.describe_action(game.config, action),
    describe="2 to 4 players; 5x5 meadow and nine kinds of 12 cubes by default",
    components=("block", BLOCKS),
    families=(
        ComponentFamily("Actions and specials", "block",
                        (("block", "in", BLOCKS),),
                        "events column block (the game's declared design components); points: the mover's "
                        "family-score change over the whole decision (events column points)", points="points"),
        ComponentFamily("Specials used", "special", (),
                        "events column special: the kind whose action special a decision used (pig: double push, "
                        "crow: devour, wolf, ladybug: pick up, duck: fly, mole: dig); points: the mover's "
                        "family-score change over the whole decision, the special's action and the collections, "
                        "combos and falls it set off (events column points)", points="points"),
        ComponentFamily("Passive specials", "passive", (),
                        "events column passive: the kinds whose passive special shaped a collection a decision set "
                        "off (water, liquid: cubes taken outside straight lines; sheep, grazer: grass taken beside "
                        "its lines that no grass formation took), each counted once a decision; points: the "
                        "mover's family-score change over that whole decision, not the special's share of it "
                        "(events column points)", points="points", separator=","),
        ComponentFamily("Kinds collected", "collected_kinds", (("collected", ">", 0),),
                        "events column collected_kinds on events with collected > 0: every kind a collection took "
                        "into the seat's farm", separator=","),
    ),
    golden=(
        GoldenGame("vora-seed2-game1-greedy-random-planner.txt", 3, 2, 1, ("greedy", "random", "planner"),
                   rotate_seats=True),
    ),
    verify_runs=tuple(VerifyRun(players, games, seed=3, jobs=2, slow=games > 300)
                      for games in (300, 500) for players in (2, 3, 4)),
)
