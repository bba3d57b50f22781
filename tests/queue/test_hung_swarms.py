"""A hung swarm is killed at its limit — the adapter's own timeout, Celery's soft limit, Celery's hard limit —
recorded as a timeout, and its worker goes on (real Celery workers, the simulator hanging on purpose).

One fleet answers the three: a host per limit, each with a home (and a config) of its own as a real host has,
behind one coordinator; each case's campaign is pinned to its host and all three are sent at once, so the
three hangs are waited out side by side, not one after the other."""
from __future__ import annotations

import pytest

from swarmgym.ledger import Ledger
from swarmgym.testing.localfleet import LocalFleet
from tests.support.queue import (
    BACKEND_DB,
    BROKER_DB,
    SIM_ENV,
    app_for,
    client,
    finalized,
    send_custom,
    sims_under,
    wait_until,
    write_config,
)

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery worker processes

LIMITS = {  # the host's own config: which limit comes first
    "swarm-timeout": {"soft_time_limit": 120, "time_limit": 150, "swarm_timeout": 4},  # the adapter's (exit 124)
    "celery-soft-limit": {"soft_time_limit": 12, "time_limit": 40, "swarm_timeout": 120},  # the ok job needs room
    "celery-hard-limit": {"soft_time_limit": 0, "time_limit": 8, "swarm_timeout": 300},  # kills the pool process
}


HOSTS = {"swarm-timeout": "mlx-timeout", "celery-soft-limit": "mlx-soft", "celery-hard-limit": "mlx-hard"}


def host_of(limit: str) -> str:
    return HOSTS[limit]


@pytest.fixture(scope="module")
def hung(redis_server, tmp_path_factory):
    """(coordinator's home, host homes, fleet, job ids by limit): every case's campaign sent at once."""
    for db in (BROKER_DB, BACKEND_DB):
        client(db).flushdb()
    root = tmp_path_factory.mktemp("hung")
    home = root / "home"
    home.mkdir()
    write_config(home)
    homes = {}
    for limit, cfg in LIMITS.items():
        homes[limit] = root / limit / "home"
        homes[limit].mkdir(parents=True)
        write_config(homes[limit], **cfg)
    fleet = LocalFleet(home, dict(SIM_ENV), die_with_parent=True)
    try:
        app = app_for(home)
        fleet.wait_ready(app, [fleet.coordinator(), *(fleet.worker("mlx", host_of(limit), home=homes[limit])
                                                      for limit in LIMITS)])
        jobs = {}
        for limit in LIMITS:
            # every job of the hard-limit host lives under the hard limit: only the hung one there
            envs = [{"SWARMGYM_SIM_FORCE": "hang"}] + ([] if limit == "celery-hard-limit" else [{}])
            jobs[limit] = send_custom(home, "mlx", envs, f"hang-{limit}", pin_host=host_of(limit))
        yield home, homes, fleet, app, jobs
    finally:
        fleet.stop_all()


@pytest.mark.parametrize("limit", list(LIMITS))
def test_a_hung_swarm_is_killed_at_its_limit_recorded_as_timeout_and_the_worker_goes_on(hung, limit):
    home, homes, fleet, app, jobs = hung
    cid = f"hang-{limit}"
    hang, ok = (jobs[limit] + [None])[:2]
    wait_until(finalized(home, cid), 240, 0.2, "the campaign record")
    ledger = Ledger(home / "ledger")
    by_job = {r.job_id: r for r in ledger.records(kind="session", campaign_id=cid)}
    assert by_job[hang].data["status"] == "timeout" and by_job[hang].overall == "fail"
    assert by_job[hang].host == host_of(limit)
    if limit == "celery-soft-limit":
        assert by_job[hang].error.type == "SoftTimeLimitExceeded"
        assert 3 <= by_job[hang].wall_secs < 30  # the task's clock starts a moment before the job's
    elif limit == "celery-hard-limit":
        assert by_job[hang].error.type == "TimeLimitExceeded" and host_of(limit) in by_job[hang].error.message
    else:
        assert by_job[hang].exit_code == 124 and 3 <= by_job[hang].wall_secs < 30
    if ok is not None:
        assert by_job[ok].data["status"] == "done" and by_job[ok].host == host_of(limit)
    else:  # the pool process was killed, the worker goes on
        fleet.wait_ready(app, [f"mlx@{host_of(limit)}"], timeout=60)
    assert not sims_under(homes[limit]) and not sims_under(home)
