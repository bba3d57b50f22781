"""Benchmark mode in-process: run a campaign's jobs here, record each as it ends.

This is the embedded default — no Redis, no workers.  This process is the only ledger writer;
with ``--parallel N`` jobs run in N threads (each swarm is its own subprocess) and results are
recorded from the main thread as they finish.  A campaign cut short is finished by running
``swarmgym bench --resume CAMPAIGN_ID``: jobs already in the ledger are skipped.
"""
from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any, Callable

from swarmgym.campaigns.finalize import finish as finish_campaign
from swarmgym.campaigns.job import run_job
from swarmgym.campaigns.plan import Campaign, flags_in_effect, load_campaign, new_campaign, plan_jobs
from swarmgym.config import Config
from swarmgym.core.hosts import host_name
from swarmgym.isolation.guard import start as start_guard
from swarmgym.ledger import Ledger, record_from_result
from swarmgym.models import JobResult, JobSpec, LedgerRecord
from swarmgym.reports import regenerate
from swarmgym.trend.alarm import fire_for

if TYPE_CHECKING:
    from swarmgym.trend.alarm import AlarmOutcome

__all__ = ["plan_jobs", "flags_in_effect", "new_bench_campaign", "run_campaign", "pending_jobs"]


def new_bench_campaign(cfg: Config, tier: str, variant: str, *, swarm: str, suite: str | None = None,
                       flags: dict[str, str] | None = None, seed: int | None = None,
                       schedule: str | None = None) -> Campaign:
    return new_campaign(cfg, tier, variant, swarm=swarm, mode="local", suite=suite, flags=flags, seed=seed,
                        schedule=schedule)


def pending_jobs(cfg: Config, campaign: Campaign) -> list[JobSpec]:
    done = set(Ledger(cfg.ledger_dir).job_ids(campaign.campaign_id))
    return [j for j in campaign.jobs if j.job_id not in done]


def resume_campaign(cfg: Config, campaign_id: str) -> Campaign:
    return load_campaign(cfg, campaign_id)


def run_campaign(cfg: Config, campaign: Campaign, *, parallel: int = 1,
                 on_start: Callable[[JobSpec], None] | None = None,
                 on_result: Callable[[JobResult, bool], None] | None = None,
                 on_finalized: Callable[[LedgerRecord, AlarmOutcome | None], None] | None = None) -> list[JobResult]:
    """Run every pending job of ``campaign``; record each in the ledger as it ends; once every job is recorded,
    write the campaign record (cluster health and the change against its baseline), rewrite the reports
    and run the schedule's ``on_change`` alarm if the verdict asks for it."""
    ledger = Ledger(cfg.ledger_dir)
    jobs = pending_jobs(cfg, campaign)
    results: list[JobResult] = []
    guard = start_guard(os.getpid())  # if this process is killed, no swarm outlives it

    def finish(res: JobResult) -> None:
        new = ledger.record(record_from_result(res))
        results.append(res)
        if on_result:
            on_result(res, new)

    try:
        if parallel <= 1:
            for job in jobs:
                if on_start:
                    on_start(job)
                finish(run_job(job, cfg))
        else:
            with ThreadPoolExecutor(max_workers=parallel) as pool:
                todo = list(jobs)
                running: set[Any] = set()
                while todo or running:
                    while todo and len(running) < parallel:
                        job = todo.pop(0)
                        if on_start:
                            on_start(job)
                        running.add(pool.submit(run_job, job, cfg))
                    done, running = wait(running, return_when=FIRST_COMPLETED)
                    for fut in done:
                        finish(fut.result())
    finally:
        if guard is not None:
            guard.terminate()
            guard.wait()

    rec = finish_campaign(cfg, ledger, campaign, {host_name(): float(parallel)})
    regenerate(cfg)
    if rec is not None:  # the record is in the ledger (and the reports) before any alarm runs
        outcome = fire_for(cfg, rec)
        if on_finalized:
            on_finalized(rec, outcome)
    return results
