"""Where a compare round runs: in this process (``local``) or on the fleet (``queue``).

Both reuse the machinery that exists: :func:`swarmgym.campaigns.bench.run_campaign` in-process (ledger
writes, orphan guard, report regeneration) and, for the fleet, the campaign plan on disk, the
Redis campaign hash and :func:`swarmgym.queue.dispatch.send_jobs` — the same batched messages
``swarmgym enqueue`` sends — then waiting until the coordinator has recorded every job.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from swarmgym.campaigns.bench import run_campaign
from swarmgym.campaigns.plan import Campaign, save_campaign
from swarmgym.config import Config
from swarmgym.core.errors import QueueError
from swarmgym.models import JobResult
from swarmgym.queue import dispatch, plans, store
from swarmgym.queue.redis_util import for_config


class LocalRunner:
    def __init__(self, parallel: int = 1) -> None:
        self.parallel = parallel

    def run(self, cfg: Config, campaigns: tuple[Campaign, Campaign],
            progress: Callable[[int, int], None] | None = None) -> None:
        total = sum(len(c.jobs) for c in campaigns)
        done = [0]

        def finished(res: JobResult, new: bool) -> None:
            done[0] += 1
            if progress:
                progress(done[0], total)

        for camp in campaigns:
            save_campaign(cfg, camp)
            run_campaign(cfg, camp, parallel=self.parallel, on_result=finished)


class FleetRunner:
    """Send both arms' round (the enqueue path: plan in Redis, batched run_job messages); wait (polling the ledger) until every job is recorded."""

    def __init__(self, app: Any, poll: float = 1.0, timeout: float | None = None) -> None:
        self.app, self.poll, self.timeout = app, poll, timeout

    def run(self, cfg: Config, campaigns: tuple[Campaign, Campaign],
            progress: Callable[[int, int], None] | None = None) -> None:
        r = for_config(cfg)
        for camp in campaigns:
            save_campaign(cfg, camp)
            plans.publish(r, camp, cfg.queue.result_expires)
            store.ensure_redis(r, camp)
            dispatch.send_jobs(self.app, cfg, camp.campaign_id, camp.jobs, fresh=True)
        total = sum(len(c.jobs) for c in campaigns)
        deadline = time.monotonic() + self.timeout if self.timeout else None
        while True:
            left = sum(len(dispatch.pending(cfg, c)) for c in campaigns)
            if progress:
                progress(total - left, total)
            if not left:
                return
            if deadline and time.monotonic() > deadline:
                ids = ", ".join(c.campaign_id for c in campaigns)
                raise QueueError(f"round not recorded after {self.timeout:.0f}s ({left} job(s) pending in {ids}); "
                                 f"finish it with `swarmgym resume <campaign>`")
            time.sleep(self.poll)
