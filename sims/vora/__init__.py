"""Vora: push cubes into a shared meadow, collect lines and families into your farm."""

from sims.core.engine import BotSpec, GameDefinition
from sims.vora import bots, config, reference, reference_bots, render, rules

GAME = GameDefinition(
    name="vora",
    title="Vora",
    player_counts=(2, 3, 4),
    load_config=config.load,
    batched=lambda cfg, players: rules.VoraEngine(cfg, players),
    reference=lambda cfg, players, seed: reference.VoraGame(cfg, players, seed),
    bots={
        "random": BotSpec("random", bots.RandomBot, reference_bots.ReferenceRandomBot,
                          "uniform among legal actions"),
        "greedy": BotSpec("greedy", bots.GreedyBot, reference_bots.ReferenceGreedyBot,
                          "one ply on every decision: my family-score change minus the best opponent's"),
        "planner": BotSpec("planner", bots.PlannerBot, None,
                           "rollouts: the best greedy candidates, each played on by greedy bots to my next turn"),
    },
    render_reference=render.render_game,
    render_compact=render.compact,
    describe_action=lambda game, action: render.describe_action(game.config, action),
    max_turns=lambda cfg: cfg.max_turns,
    describe="2 to 4 players; 5x5 meadow and nine kinds of 12 cubes by default",
    components=("block", ("push", "double", "devour", "wolf", "pick_up", "fly_swap", "dig", "pick", "steal")),
)
