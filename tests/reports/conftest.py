"""Fixtures for the report tests: hand-built session documents (:mod:`tests.support.docs`), a ledger filler."""
from __future__ import annotations

import pytest

from swarmgym.models import SessionDoc
from tests.support.docs import SLUGS, make_doc


@pytest.fixture
def doc() -> SessionDoc:
    return make_doc()


@pytest.fixture
def doc_factory():
    return make_doc


@pytest.fixture
def cfg(tmp_path):
    from swarmgym.config import load_config
    return load_config(tmp_path, environ={})


@pytest.fixture
def add_runs(cfg):
    """add_runs(variant, suite_hash, {spec: [True, False, ...]}, **fields): one ledger record per outcome; rep r
    ran with seed r (as a campaign plans it), so two arms' reps pair on (spec, seed)."""
    from swarmgym.ledger import Ledger
    from swarmgym.models import LedgerRecord, Provenance

    ledger = Ledger(cfg.ledger_dir)
    counter = iter(range(100000))

    def add(variant: str, suite_hash: str | None, outcomes: dict[str, list[bool]], **fields) -> None:
        for rep in range(max(len(v) for v in outcomes.values())):
            for spec, oks in outcomes.items():
                if rep >= len(oks):
                    continue
                i = next(counter)
                ok = oks[rep]
                base = dict(session_id=f"s{i:04d}", job_id=f"{variant}:{suite_hash}:{i:04d}",
                            campaign_id=f"{variant}-camp", mode="benchmark", spec=spec, app_slug=SLUGS.get(spec, spec),
                            variant=variant, tier="medium", rep=rep, suite="bench-v1", suite_hash=suite_hash,
                            overall="pass" if ok else "fail", functional=ok,
                            dimensions={"checks": "pass" if ok else "fail", "swarm": "pass", "cluster": "partial",
                                        "diagnostics": "pass"},
                            wall_secs=float(10 * (rep + 1)), exit_code=0, tasks_done=6, tasks_failed=0 if ok else 1,
                            ts=1.7e9 + i, provenance=Provenance(seed=rep))
                base.update(fields)
                ledger.record(LedgerRecord(**base))

    return add
