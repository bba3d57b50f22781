"""The typed settings behind the CLI's options that are not the engine's own config (that is
:mod:`swarmgym.config`: checks, swarm, sandbox, brain, explore, queue, trend).

(``once``/``loop``/``explore`` options live in ``explore``, ``trend`` options in ``trend``, in
:mod:`swarmgym.config`.)  Each field is a setting one or more options read (:mod:`swarmgym.cli.options` binds every option to one
key): its description is the option's help, its default the option's default, and its one env var is
``SWARMGYM_<SECTION>_<NAME>``.  Like every key, each can be set in ``config.yaml`` too.  A section is an
idea several commands share (``campaign``: what a campaign runs; ``output``: how results are printed;
``fleet``: waiting on the fleet) or one command's own (``compare``, ``verify``, ``worker``, …).
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

Tier = Literal["smoke", "light", "medium", "high", "extreme"]
#: compare's default budget in runs: the high tier's 60 (an undecided compare says what budget can decide)
DEFAULT_MAX_RUNS = 60


def _words(v: object) -> object:
    """A list given as one string (an env var, a .env line): split on spaces and commas."""
    return [w for w in v.replace(",", " ").split() if w] if isinstance(v, str) else v


Words = Annotated[list[str], BeforeValidator(_words)]


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CampaignSettings(Section):
    """What a campaign runs: ``bench`` and ``enqueue`` plan it, ``once``/``loop``/``explore`` label their runs."""

    tier: Tier = Field("smoke", description="how many runs: smoke, light, medium, high or extreme (sizes per suite "
                                            "in --help)")
    variant: str = Field("mlx", description="label of the build under test; on the fleet, jobs go to queue "
                                            "variant.<v>")
    seed: int | None = Field(None, description="base seed for the simulator (rep r uses seed+r); default: the first "
                                               "block of 1000 seeds this variant+flags never ran (0 for its first "
                                               "campaign)")
    parallel: int = Field(1, ge=1, le=64, description="jobs run at once in this process (bench, compare)")


class OutputSettings(Section):
    json_: bool = Field(False, alias="json", description="print JSON instead of tables (every command with --json)")
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class FleetSettings(Section):
    wait: bool = Field(False, description="show progress until the campaign is finalized (enqueue, resume)")


class BenchSettings(Section):
    schedule: str | None = Field(None, description="run schedule NAME's campaign now, in-process: its tier and "
                                                   "variant, its series (the baseline of change detection) and its "
                                                   "on_change alarm")
    resume: str | None = Field(None, description="finish campaign CAMPAIGN_ID cut short: run only its jobs missing "
                                                 "from the ledger")


class CompareSettings(Section):
    until: Literal["decided", "budget"] = Field("decided", description="stop at the first decision, or spend the "
                                                                       "whole budget (the first decision stands)")
    max_runs: int = Field(DEFAULT_MAX_RUNS, ge=1, description="budget in runs, both arms together (one round = every spec once "
                                                 "per arm)")
    alpha: float = Field(0.05, gt=0, lt=1, description="error rate of each decision, valid at every round (compare, "
                                                       "plan)")
    min_effect: float = Field(0.1, gt=0, lt=1, description="smallest pass-rate difference that matters: 'no "
                                                           "difference' once the effect's interval lies inside ±this; "
                                                           "an undecided compare's next step is sized to detect it")
    seed: int | None = Field(None, description="seed of round 1 (round k uses seed+k-1, the same for both arms); "
                                               "default: the first block of 1000 seeds neither arm ran")
    fleet: bool = Field(False, description="run the rounds on the fleet (Celery/Redis workers; the coordinator "
                                           "records)")
    round_timeout: float | None = Field(None, gt=0, description="--fleet: give up on a round not recorded after "
                                                                "this many seconds (default: wait)")


class TuneSettings(Section):
    baseline: str | None = Field(None, description="the arm the others must beat (default: the first arm)")
    confidence: float = Field(0.95, ge=0.5, lt=1, description="chance that the arm named best is within min_effect "
                                                              "of the best arm, valid at every round")
    min_effect: float = Field(0.1, gt=0, lt=1, description="pass-rate difference that matters: the winner is within "
                                                           "it of the best arm; 'no arm better' means none beats the "
                                                           "baseline by it")
    max_runs: int | None = Field(None, ge=1, description="budget in runs, all arms together (default: 60 per arm)")
    seed: int | None = Field(None, description="seed of round 1 (round k uses seed+k-1, the same for every arm); "
                                               "default: the first block of 1000 seeds no arm ran")
    fleet: bool = Field(False, description="run the rounds on the fleet (Celery/Redis workers; the coordinator "
                                           "records)")
    round_timeout: float | None = Field(None, gt=0, description="--fleet: give up on a round not recorded after "
                                                                "this many seconds (default: wait)")
    resume: str | None = Field(None, description="finish tune TUNE_ID cut short: its arms and settings are its own; "
                                                 "the round that was running runs only its jobs missing from the ledger")


class PlanSettings(Section):
    effect: float = Field(0.1, gt=0, lt=1, description="pass-rate difference to detect")
    power: float = Field(0.8, gt=0, lt=1, description="chance to detect it")


class ReportSettings(Section):
    n: int = Field(30, ge=1, description="how many sessions")
    compare: Words = Field(default_factory=list, description="write runs/COMPARE.html: BENCHMARK.html's pictures for "
                                                             "these two arms only (as bench-report names them)")
    open: bool = Field(False, description="with --compare: open the page in a browser")


class VerifySettings(Section):
    spec: str | None = Field(None, description="spec id or app slug to grade against, e.g. compute or rdcalc "
                                               "(required)")
    hard: bool = Field(False, description="also grade the hard (extreme-tier) checks")


class SuitekitSettings(Section):
    workers: int = Field(3, ge=1, le=8, description="apps verified in parallel")
    specs: Words = Field(default_factory=list, description="only these spec ids or app slugs (repeatable)")
    mutants: Words = Field(default_factory=list, description="only these mutants (repeatable): a quick partial "
                                                             "run; suite-level rules are not judged")
    exhaustive: bool = Field(False, description="run every check on every mutant (default: only the checks that "
                                                "decide each mutant's verdict)")
    slug: str | None = Field(None, description="suite new: the app's package name (default: NAME)")


class EnqueueSettings(Section):
    pin_host: str | None = Field(None, description="run every job on this host (queue host.<name>)")
    campaign_id: str | None = Field(None, description="explicit id; an id already enqueued does nothing")
    require_workers: bool = Field(False, description="refuse (exit 2) when no host serving the variant is online")


class StatusSettings(Section):
    watch: bool = Field(False, description="the live fleet table (hosts, coordinator, progress, failures) until the "
                        "campaign is done; with no campaign, every campaign in flight until Ctrl-C")
    jobs: bool = Field(True, description="table of the last changes")
    all: bool = Field(False, description="every job of the campaign (read page by page; linear in the campaign)")


class WorkersSettings(Section):
    timeout: float = Field(1.5, gt=0, description="seconds to wait for the workers' replies")


class WorkerSettings(Section):
    variant: str | None = Field(None, description="the build this host serves (queue variant.<v>); or --coordinator")
    host: str | None = Field(None, description="host name (queue host.<name>; default: this machine)")
    concurrency: int = Field(1, ge=1, le=64, description="jobs at once (1 per host: a swarm uses the whole machine)")
    coordinator: bool = Field(False, description="run the coordinator (queue coordinator; the only ledger writer)")
    loglevel: str = Field("INFO", description="celery log level")
    pool: Literal["prefork", "solo", "threads"] | None = Field(
        None, description="celery pool (default: prefork for hosts, a batching thread pool for the coordinator; solo "
                          "keeps a host to one light process, without Celery's time limits)")


class HostsSettings(Section):
    force: bool = Field(False, description="hosts key new: replace an existing key (the coordinator must then trust "
                                           "the new one)")


class SuperviseSettings(Section):
    procfile: str = Field("Procfile", description="the Procfile whose processes to keep running (name: command "
                                                   "lines; each command runs under sh, with <home>/.env loaded)")
    restart_max: float = Field(30.0, gt=0, description="longest wait (seconds) before restarting a process that keeps "
                                                       "exiting; the wait starts at 1 s and doubles while it dies young")
    stop_timeout: float = Field(10.0, gt=0, description="seconds each process gets to exit after SIGTERM before "
                                                        "SIGKILL when the supervisor stops")


SECTIONS: dict[str, type[Section]] = {
    "campaign": CampaignSettings, "output": OutputSettings, "fleet": FleetSettings, "bench": BenchSettings,
    "compare": CompareSettings, "tune": TuneSettings, "plan": PlanSettings, "report": ReportSettings, "verify": VerifySettings,
    "suitekit": SuitekitSettings, "enqueue": EnqueueSettings, "status": StatusSettings, "workers": WorkersSettings,
    "worker": WorkerSettings, "hosts": HostsSettings, "supervise": SuperviseSettings,
}
