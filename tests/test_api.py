"""The public API of the runner, verify, bench and summary modules, pinned."""

import analysis.summary
import sims.bench
import sims.runner
import sims.verify


def test_public_api():
    for module, names in [
        (sims.runner, ["run", "RunSummary", "load_records", "load_events", "load_manifest", "plan_chunks", "Chunk"]),
        (sims.verify, ["verify", "VerifyReport", "MismatchDetail", "default_lineups"]),
        (sims.bench, ["bench", "format_bench"]),
        (analysis.summary, ["summarize", "format_summary", "Summary"]),
    ]:
        for name in names:
            assert callable(getattr(module, name)), f"{module.__name__}.{name}"
