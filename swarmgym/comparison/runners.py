"""Where a compare round runs: in this process (``local``) or on the fleet (``queue``).

Both reuse the machinery that exists: :func:`swarmgym.campaigns.bench.run_campaign` in-process (ledger
writes, orphan guard, report regeneration) and, for the fleet, the enqueue path — the plan in Redis,
the campaign's counters and :func:`swarmgym.queue.dispatch.send_jobs`, the same batched messages
``swarmgym enqueue`` sends — then waiting until the coordinator's counters say every job is recorded,
and reading the records from the coordinator (a record source, :mod:`swarmgym.campaigns.records`):
nothing of this machine's ledger, which the coordinator never writes.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from swarmgym.campaigns.bench import run_campaign
from swarmgym.campaigns.plan import Campaign, save_campaign
from swarmgym.campaigns.records import Ask, RecordSource, checked
from swarmgym.comparison.compare import ledger_records
from swarmgym.config import Config
from swarmgym.core.errors import QueueError
from swarmgym.models import JobResult, LedgerRecord
from swarmgym.queue import counters, dispatch, plans, store
from swarmgym.queue.redis_util import for_config


class LocalRunner:
    def __init__(self, parallel: int = 1) -> None:
        self.parallel = parallel

    def run(self, cfg: Config, campaigns: Sequence[Campaign],
            progress: Callable[[int, int], None] | None = None) -> dict[str, LedgerRecord]:
        total = sum(len(c.jobs) for c in campaigns)
        done = [0]

        def finished(res: JobResult, new: bool) -> None:
            done[0] += 1
            if progress:
                progress(done[0], total)

        for camp in campaigns:
            save_campaign(cfg, camp)
            run_campaign(cfg, camp, parallel=self.parallel, on_result=finished)
        return ledger_records(cfg, campaigns)


class FleetRunner:
    """Send both arms' round (the enqueue path); wait until the coordinator has recorded every job (its
    counters in Redis), then read the records through ``source`` (the coordinator's)."""

    def __init__(self, app: Any, source: RecordSource, poll: float = 1.0, timeout: float | None = None) -> None:
        self.app, self.source, self.poll, self.timeout = app, source, poll, timeout

    def run(self, cfg: Config, campaigns: Sequence[Campaign],
            progress: Callable[[int, int], None] | None = None) -> dict[str, LedgerRecord]:
        r = for_config(cfg)
        for camp in campaigns:
            save_campaign(cfg, camp)  # the enqueuer's copy, as `enqueue` keeps one
            plans.publish(r, camp, cfg.queue.result_expires)
            store.ensure_redis(r, camp)
            if (counters.snapshot(r, camp.campaign_id, recent=0) or {}).get("recorded", 0):
                # a round cut short (a resumed tune): only the jobs without a record run again
                dispatch.resume(self.app, cfg, camp.campaign_id, self.source)
            else:
                dispatch.send_jobs(self.app, cfg, camp.campaign_id, camp.jobs, fresh=True)
        planned = {j.job_id for c in campaigns for j in c.jobs}
        deadline = time.monotonic() + self.timeout if self.timeout else None
        while True:
            snaps = [counters.snapshot(r, c.campaign_id, recent=0) or {} for c in campaigns]
            recorded = sum(min(s.get("recorded", 0), len(c.jobs)) for s, c in zip(snaps, campaigns))
            if progress:
                progress(recorded, len(planned))
            if recorded >= len(planned):
                ids = [c.campaign_id for c in campaigns]
                got = {x.job_id: x for x in checked(self.source, Ask(kind="sessions", campaign_ids=ids)).sessions}
                if planned <= set(got):
                    return got
            if deadline and time.monotonic() > deadline:
                raise QueueError(f"round not recorded after {self.timeout:.0f}s ({len(planned) - recorded} job(s) "
                                 f"pending in {', '.join(c.campaign_id for c in campaigns)}); finish it with "
                                 "`swarmgym resume <campaign>`")
            time.sleep(self.poll)
