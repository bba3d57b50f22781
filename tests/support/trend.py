"""Homes for the trend tests: real ``swarmgym`` processes, real (tiny) jobs.

:func:`write_home` makes a home whose suite (``tiny-v1``, :data:`tests.support.queue.TINY_SUITE`) has one spec
with one check (``out.txt`` exists) and whose swarm is the ``command`` adapter: a job is a real boxed subprocess
plus a real golden check, in well under a second.  Swapping the command is a new build of the swarm:
:data:`WORKS` builds a working app, :data:`BROKEN` builds nothing.

:func:`record_night` writes one campaign's runs straight into a real ledger and finalizes it with the real
code (:func:`swarmgym.campaigns.finalize.finish`): the change-detection tests' nights, without running jobs.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.queue import TINY_SUITE

WORKS = ["sh", "-c", "echo ok > out.txt", "{prompt}"]
BROKEN = ["sh", "-c", "true", "{prompt}"]

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_SWARM_", "SWARMGYM_"))}
ENV["COLUMNS"] = "200"


def write_home(home: Path, command: list[str], **extra) -> Path:
    """(Re)write ``home``'s config: the tiny suite, the command adapter running ``command``."""
    suites = home / "suites"
    (suites / "tiny-v1").mkdir(parents=True, exist_ok=True)
    (suites / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(TINY_SUITE))
    cfg = {"suites_dir": str(suites), "suite": "tiny-v1",
           "swarm": {"adapter": "command", "command": command, "timeout": 60}, **extra}
    (home / "config.yaml").write_text(yaml.safe_dump(cfg))
    return home


def swarmgym(home: Path, *args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], capture_output=True,
                          text=True, env={**ENV, **(env or {})}, timeout=timeout)


# --- nights written straight into a real ledger, finalized by the real code ---------------------

DAY = 86400.0
T0 = 1.79e9


def record_night(cfg, ledger, cid: str, outcomes: dict[str, list[bool]], *, night: int, seed: int | None = None,
                 schedule: str | None = "nightly", suite_hash: str = "sha256:aaaa", adapter: str = "sim",
                 variant: str = "mlx", flags: dict | None = None, tier: str = "high", infra: int = 0,
                 binary_version: str = "swarmgym-sim 0.1.0", replays: bool = False):
    """One campaign planned at ``T0 + night`` days: session records for ``outcomes`` ({spec: [functional per
    rep]}), then the campaign record exactly as ``bench`` writes it (:func:`swarmgym.campaigns.finalize.finish`)."""
    from swarmgym.campaigns.finalize import finish
    from swarmgym.campaigns.plan import Campaign
    from swarmgym.models import JobSpec, LedgerRecord, Provenance

    created = T0 + night * DAY
    seed = night * 1000 if seed is None else seed
    jobs, recs = [], []
    reps = max(len(v) for v in outcomes.values())
    for rep in range(reps):
        for spec, oks in outcomes.items():
            if rep >= len(oks):
                continue
            jid = f"{cid}-{len(jobs):03d}"
            jobs.append(JobSpec(job_id=jid, campaign_id=cid, suite="bench-v2", suite_hash=suite_hash, spec=spec,
                                app_slug=spec, variant=variant, tier=tier, rep=rep, seed=seed + rep))
            ok = oks[rep]
            prov = Provenance(adapter=adapter, binary_version=binary_version, seed=seed + rep, suite_hash=suite_hash,
                              flags=dict(flags or {}), host="h1", replays_seed=replays)
            overall = "infra" if len(recs) < infra else ("pass" if ok else "fail")
            recs.append(LedgerRecord(session_id=f"s-{jid}", job_id=jid, campaign_id=cid, mode="benchmark", spec=spec,
                                     app_slug=spec, variant=variant, tier=tier, rep=rep, suite="bench-v2",
                                     suite_hash=suite_hash, host="h1", overall=overall,
                                     functional=ok and overall != "infra", flags=dict(flags or {}),
                                     ts=created + 60 + len(recs), data={"started": created + len(recs)},
                                     provenance=prov))
    ledger.record_many(recs)
    camp = Campaign(campaign_id=cid, mode="local", tier=tier, variant=variant, suite="bench-v2", suite_hash=suite_hash,
                    swarm=adapter, flags=dict(flags or {}), created=created, schedule=schedule, jobs=jobs)
    rec = finish(cfg, ledger, camp)
    assert rec is not None
    return rec


def rows(passes: int, runs: int) -> list[bool]:
    return [True] * passes + [False] * (runs - passes)
