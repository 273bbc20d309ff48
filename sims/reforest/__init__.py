"""Reforest: grow a forest region of plant cards, cover and succeed, win the visitors."""

from sims.core.engine import BotSpec, GameDefinition
from sims.reforest import bots, config, reference, reference_bots, render, rules

GAME = GameDefinition(
    name="reforest",
    title="Reforest",
    player_counts=(1, 2, 3, 4),
    load_config=config.load,
    batched=lambda cfg, players: rules.ReforestEngine(cfg, players),
    reference=lambda cfg, players, seed: reference.ReforestGame(cfg, players, seed),
    bots={
        "random": BotSpec("random", bots.RandomBot, reference_bots.ReferenceRandomBot,
                          "uniform among legal actions"),
        "greedy": BotSpec("greedy", bots.GreedyBot, reference_bots.ReferenceGreedyBot,
                          "one ply to the end of the turn: points, elevation, visitor goals, cards in hand"),
        "planner": BotSpec("planner", bots.PlannerBot, None,
                           "rollouts: the best greedy candidates, each played on by greedy bots"),
    },
    render_reference=render.render_game,
    render_compact=render.compact,
    describe_action=lambda game, action: render.describe_action(game.config, action),
    max_turns=lambda cfg: cfg.max_turns,
    bot_weights=lambda cfg, kind: cfg.bot_weights.get(kind, {}),
    personas=lambda cfg: cfg.personas,
    describe="1 (solitaire) to 4 players; 91 plant cards of 31 species, 10 visitors by default",
    components=("played", None),
)
