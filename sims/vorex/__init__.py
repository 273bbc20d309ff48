"""Vorex: grow a shared hex forest from tiles and bloom carnivorous flowers on its stumps (solo against the weed)."""

from sims.core.engine import BotSpec, GameDefinition
from sims.vorex import bots, config, reference, reference_bots, render, rules

GAME = GameDefinition(
    name="vorex",
    title="Vorex",
    player_counts=(1, 2, 3, 4),
    load_config=config.load,
    batched=lambda cfg, players: rules.VorexEngine(cfg, players),
    reference=lambda cfg, players, seed: reference.VorexGame(cfg, players, seed),
    bots={
        "random": BotSpec("random", bots.RandomBot, reference_bots.ReferenceRandomBot,
                          "uniform among legal actions"),
        "greedy": BotSpec("greedy", bots.GreedyBot, reference_bots.ReferenceGreedyBot,
                          "one ply: points, objective gain, production, resources, tiles"),
        "planner": BotSpec("planner", bots.PlannerBot, None,
                           "rollouts: the best greedy candidates, each played on by greedy bots"),
    },
    render_reference=render.render_game,
    render_compact=render.compact,
    describe_action=lambda game, action: render.describe_action(game.config, action),
    max_turns=lambda cfg: cfg.max_turns,
    bot_weights=lambda cfg, kind: cfg.bot_weights.get(kind, {}),
    personas=lambda cfg: cfg.personas,
    describe="1 (solo against the weed, a seat of its own) to 4 players; 26 forest tiles, 13 flowers each",
    components=("kind", ("draw", "expand", "bloom", "bonus_expand", "bonus_bloom")),
    seats=lambda players: 2 if players == 1 else players,
    house_bot="greedy",
)
