"""Reforest: grow a forest region of plant cards, cover and succeed, win the visitors."""

from sims.core.components import ComponentFamily
from sims.core.engine import BotSpec, GameDefinition, GoldenGame, VerifyRun
from sims.reforest import config, render

GAME = GameDefinition(
    name="reforest",
    title="Reforest",
    compile_seconds=50,  # CPU s of a cold compile of every bot's kernels: make compile-profile GAME=reforest
    player_counts=(1, 2, 3, 4),
    load_config=config.load,
    batched="sims.reforest.rules:ReforestEngine",
    reference="sims.reforest.reference:ReforestGame",
    bots={
        "random": BotSpec("random", "sims.core.bots:RandomBot", "sims.reforest.reference_bots:ReferenceRandomBot",
                          "uniform among legal actions"),
        "greedy": BotSpec("greedy", "sims.reforest.bots:GreedyBot", "sims.reforest.reference_bots:ReferenceGreedyBot",
                          "one ply to the end of the turn: points, elevation, visitor goals, cards in hand"),
        "planner": BotSpec("planner", "sims.reforest.bots:PlannerBot", None,
                           "rollouts: the best greedy candidates, each played on by greedy bots"),
    },
    render_reference=render.render_game,
    render_compact=render.compact,
    describe_action=lambda game, action: render.describe_action(game.config, action),
    describe="1 (solitaire) to 4 players; 91 plant cards of 31 species, 10 visitors by default",
    components=("played", None),
    families=(
        ComponentFamily("Cards played", "played", (("event", "==", "play"),),
                        "events column played on events with event play; points: the card's own points at the end "
                        "(card_points: its value while it is a plant, a covered sun plant turned energy scoring 0 "
                        "as a card, plus its scoring effect if it ends in the canopy)", points="card_points",
                        held=(("event", "in", ("deal", "gather", "draw")),), held_item="species",
                        held_logged=("event", "deal")),
        ComponentFamily("Visitors won", "visitor", (("event", "==", "visitor"), ("amount", "==", 1)),
                        "events column visitor on events with event visitor and amount 1 (the seat is the winner); "
                        "points: the visitor's points", points="points"),
        ComponentFamily("Effects used", "species", (("event", "==", "effect"), ("amount", "==", 1)),
                        "events column species on events with event effect and amount 1 (used, not declined)"),
        ComponentFamily("Effects triggered", "effect", (("event", "==", "effect"),),
                        "events column effect on events with event effect: each effect or reaction that fired "
                        "(used); cards: the cards it drew or stored (events column gave)", points="gave", unit="cards"),
    ),
    golden=(
        GoldenGame("reforest-seed2-game1-greedy-random.txt", 2, 2, 1, ("greedy", "random"), rotate_seats=True),
        GoldenGame("reforest-solitaire-seed3-game0-greedy.txt", 1, 3, 0, ("greedy",)),
    ),
    verify_runs=(
        VerifyRun(1, 200, seed=17, jobs=2),
        VerifyRun(2, 200, seed=17, jobs=2),
        VerifyRun(3, 200, seed=19, bots=("random",) * 3, jobs=2),
        VerifyRun(3, 30, seed=23, bots=("greedy", "random", "random")),
        VerifyRun(4, 200, seed=19, bots=("random",) * 4, jobs=2),
        VerifyRun(4, 30, seed=23, bots=("greedy", "random", "random", "random")),
        # tiny decks: after round 3 the cards can run out with nothing left to play (rules §8.2, 5 games here)
        VerifyRun(4, 300, seed=7, bots=("random",) * 4,
                  overrides=("deck.size=[8, 10, 14, 18]", "deck.tucked=[0, 0, 0, 0]", "hand.start=1")),
        *(VerifyRun(players, 300, seed=17, jobs=2, slow=True) for players in (1, 2)),
        *(VerifyRun(players, 300, seed=19, bots=("random",) * players, jobs=2, slow=True) for players in (3, 4)),
    ),
)
