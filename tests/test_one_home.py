"""One home per idea (issue #23): the seed rule, the id stamp and the isolation choices each live in one place
and every user of them follows it."""
from __future__ import annotations

import re

import click
import pytest

from swarmgym.campaigns.job import new_session_id
from swarmgym.campaigns.plan import SEED_STRIDE, job_seed, new_campaign, new_campaign_id, plan_jobs, save_campaign
from swarmgym.cli import cli
from swarmgym.comparison.compare import Arm, new_compare, round_campaigns
from swarmgym.config import load_config
from swarmgym.core.errors import ConfigError
from swarmgym.core.ids import new_id
from swarmgym.isolation import CHOICES
from swarmgym.suitekit.suite import load_suite

STAMP = r"\d{8}-\d{6}"


# --- the seed rule ---------------------------------------------------------------------------------

def test_rep_r_of_every_spec_gets_the_campaign_seed_plus_r(tmp_path):
    s = load_suite("bench-v1", load_config(tmp_path).suites_dir)
    jobs = plan_jobs(s, "medium", "gguf", campaign_id="c", seed=2000)
    assert {j.seed for j in jobs} == {job_seed(2000, r) for r in range(5)} == set(range(2000, 2005))
    assert all(j.seed == 2000 + j.rep for j in jobs)


def test_a_new_campaign_or_comparison_takes_the_first_seed_block_its_arms_never_ran(tmp_path):
    cfg = load_config(tmp_path)
    seeds = [new_campaign(cfg, "smoke", "gguf", swarm="sim", flags={}).seed for _ in range(3)]
    assert seeds == [0, SEED_STRIDE, 2 * SEED_STRIDE]
    a, b = Arm(variant="gguf"), Arm(variant="gguf", flags={"GOOSE_SWARM_REVIEW": "1"})
    st = new_compare(cfg, a, b, swarm="sim")
    assert st.seed == 3 * SEED_STRIDE                     # neither arm ran it: every pair is new evidence
    for camp in round_campaigns(cfg, st, 1):              # the round's campaigns are planned like any other
        save_campaign(cfg, camp)
    assert new_campaign(cfg, "smoke", "gguf", swarm="sim", flags=b.flags).seed == 0   # B's first own: paired with A's
    assert new_campaign(cfg, "smoke", "gguf", swarm="sim", flags={}).seed == 4 * SEED_STRIDE


def test_round_k_of_a_comparison_is_rep_k_minus_1_with_its_seed_for_both_arms(tmp_path):
    cfg = load_config(tmp_path)
    st = new_compare(cfg, Arm(variant="gguf"), Arm(variant="gguf", flags={"GOOSE_SWARM_REVIEW": "1"}),
                     swarm="sim", seed=7000)
    ca, cb = round_campaigns(cfg, st, 3)
    for camp in (ca, cb):
        assert camp.jobs and all(j.rep == 2 and j.seed == job_seed(7000, 2) == 7002 for j in camp.jobs)
    assert [j.spec for j in ca.jobs] == [j.spec for j in cb.jobs]


# --- the id stamp ----------------------------------------------------------------------------------

def test_campaign_comparison_and_session_ids_carry_the_utc_second_and_random_hex(tmp_path):
    assert re.fullmatch(rf"q-mlx-high-{STAMP}-[0-9a-f]{{4}}", new_campaign_id("q", "mlx", "high"))
    assert re.fullmatch(rf"{STAMP}-crud-[0-9a-f]{{6}}", new_session_id("crud"))
    st = new_compare(load_config(tmp_path), Arm(variant="a"), Arm(variant="b"), swarm="sim")
    assert re.fullmatch(rf"cmp-{STAMP}-[0-9a-f]{{4}}", st.compare_id)


def test_ids_made_in_the_same_second_differ():
    ids = {new_id("x", nbytes=3) for _ in range(200)}
    assert len(ids) == 200


# --- the isolation choices -------------------------------------------------------------------------

def _isolation_options(group: click.Group, path: str = "") -> dict[str, tuple[str, ...]]:
    out = {}
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            out.update(_isolation_options(cmd, f"{path}{name} "))
        for p in cmd.params:
            if p.name == "isolation":
                assert isinstance(p.type, click.Choice)
                out[path + name] = tuple(p.type.choices)
    return out


def test_every_isolation_option_offers_exactly_the_isolation_choices():
    found = _isolation_options(cli)
    assert set(found) >= {"verify", "bench", "worker"}
    assert all(choices == CHOICES for choices in found.values()), found


def test_config_takes_exactly_the_isolation_choices(tmp_path):
    for choice in CHOICES:
        assert load_config(tmp_path, environ={"SWARMGYM_SANDBOX_BACKEND": choice}).sandbox.backend == choice
    with pytest.raises(ConfigError, match=", ".join(CHOICES)):
        load_config(tmp_path, environ={"SWARMGYM_SANDBOX_BACKEND": "chroot"})


# --- the campaign record's id ----------------------------------------------------------------------

def test_a_campaign_record_is_found_by_the_one_campaign_job_id():
    from swarmgym.ledger import campaign_job_id, campaign_record

    rec = campaign_record("c1", variant="mlx", tier="smoke", overall="pass")
    assert rec.job_id == rec.session_id == campaign_job_id("c1") == "campaign:c1"
