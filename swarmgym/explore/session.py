"""One exploratory session: open → (run → collect → verify → tweak? → next_move)* on one app workspace.

:func:`run_session` never crashes on a bad brain, a failing swarm or a broken app: those are
recorded in the turns and the session.  It writes ``runs/<sid>/`` (session.json, turn-<n>.json,
report.html) and one ledger record (mode ``exploratory``).
"""
from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from swarmgym.brains import ask_json, get_brain
from swarmgym.campaigns.job import new_session_id, run_turn, turn_from
from swarmgym.config import Config
from swarmgym.core.errors import SwarmgymError
from swarmgym.core.hosts import host_name
from swarmgym.explore import prompts
from swarmgym.explore.archetypes import Substrate, check_archetype, open_session, pick_substrate
from swarmgym.explore.judge import Judge
from swarmgym.explore.monitor import MonitorReport, monitor_session, monitor_turn
from swarmgym.explore.schemas import NextMove, merge_checks
from swarmgym.explore.simulated import buildable
from swarmgym.explore.tweaker import apply, brain_proposal, rule_proposal
from swarmgym.ledger import Ledger, record_from_result
from swarmgym.models import ErrorInfo, JobResult, JobSpec, SessionDoc, Turn, Verdict
from swarmgym.reports.session import write_session
from swarmgym.suitekit.suite import Check
from swarmgym.trust import safefs

Progress = Callable[[str], None]
log = logging.getLogger(__name__)


class _State:
    """What a session carries from turn to turn."""

    def __init__(self, cfg: Config, doc: SessionDoc, workspace: Path, checks: list[Check], mcp: tuple[str, ...],
                 requirements: list[str]):
        self.cfg, self.doc, self.workspace = cfg, doc, workspace
        self.checks, self.mcp, self.requirements = checks, mcp, requirements
        self.env: dict[str, str] = {}


def _turn(st: _State, n: int, kind: str, prompt: str, *, adapter: str, variant: str, judge, seed: int) -> Turn:
    start = time.time()
    try:
        evidence, verdict = run_turn(st.workspace, prompt, st.checks, st.cfg, adapter=adapter, variant=variant,
                                     env=st.env, mcp=st.mcp, judge=judge, seed=seed, requirements=st.requirements,
                                     suite=st.cfg.suite)  # the simulator builds this suite's apps (docs/exploratory.md)
    except Exception as e:  # the swarm could not even start: data, not a crash
        if isinstance(e, SwarmgymError):  # a known cause (no binary, no box): its one line says it
            log.warning("turn %d could not run: %s: %s", n, type(e).__name__, e)
        else:
            log.exception("turn %d crashed", n)
        return Turn(n=n, kind=kind, prompt=prompt, error=ErrorInfo.of(e), wall_secs=round(time.time() - start, 3))
    turn = turn_from(n, kind, prompt, evidence, verdict, time.time() - start)
    if evidence.provenance is not None:
        st.doc.provenance = evidence.provenance
    turn.data["checks"] = [c.name for c in st.checks]
    turn.data["monitor"] = monitor_turn(turn).model_dump(mode="json")
    return turn


def _tweak(st: _State, turn: Turn, brain, tweaker: str, *, adapter: str, variant: str, judge, seed: int,
           say: Progress) -> Turn | None:
    """If the turn's fleet was unbalanced: propose, guard, apply, re-run; the re-run turn (or None)."""
    report = MonitorReport.model_validate(turn.data.get("monitor") or {})
    if not report.unbalanced:
        return None
    proposal, problem = None, None
    if tweaker == "brain":
        try:
            proposal = brain_proposal(brain, st.cfg, report, turn.pool)
        except SwarmgymError as e:
            problem = ErrorInfo.of(e).model_dump()
    proposal = proposal or rule_proposal(report, turn.pool)
    if proposal is None:
        turn.tweak = {"proposal": None, "applied": [], "rejected": [], "note": "no knob change found", "error": problem}
        return None
    outcome = apply(proposal, st.cfg, st.workspace, adapter=adapter, env=st.env, pool=turn.pool)
    outcome["error"] = problem
    outcome["before"] = dict(turn.per_device)
    say(f"tweak: {proposal.rationale or proposal.changes} → applied {len(outcome['applied'])}, "
        f"rejected {len(outcome['rejected'])}")
    if not outcome["applied"]:
        turn.tweak = outcome
        return None
    st.env.update(outcome["env_overrides"])
    rerun = _turn(st, turn.n + 1, "tweak-rerun", turn.prompt, adapter=adapter, variant=variant, judge=judge, seed=seed)
    outcome["after"] = dict(rerun.per_device)
    outcome["monitor_before"] = report.line()
    outcome["monitor_after"] = monitor_turn(rerun).line() if rerun.error is None else "re-run failed"
    rerun.tweak = outcome
    say(f"turn {rerun.n} (tweak-rerun): {rerun.verdict.overall if rerun.verdict else 'error'}; "
        f"fleet {outcome['monitor_after']}; before {outcome['before']} after {outcome['after']}")
    return rerun


def _state_for_brain(st: _State, turn: Turn, n: int, budget: int) -> dict[str, Any]:
    v: Verdict | None = turn.verdict
    checks = v.dimensions.get("checks") if v else None
    results = (checks.data.get("results") if checks else None) or []
    return {"turn": n, "turn_budget": budget, "app_slug": st.doc.app_slug,
            "last_prompt": turn.prompt[:4000], "overall": v.overall if v else "error",
            "error": turn.error.message if turn.error else None,
            "dimensions": {k: d.status for k, d in (v.dimensions.items() if v else [])},
            "check_results": results[:40],
            "findings": [f.model_dump() for f in (v.findings if v else [])][:20],
            "existing_checks": [c.name for c in st.checks],
            "files": [f.rel for f in safefs.list_files(st.workspace, max_files=100, skip_dirs={".swarm"},
                                                       suffixes={".py"}).files]}


def _record(cfg: Config, doc: SessionDoc, brain, started: float) -> None:
    graded = [t for t in doc.turns if t.verdict is not None]
    last = graded[-1] if graded else None
    mon = monitor_session([t for t in doc.turns])
    runs = [t.run for t in doc.turns if t.run is not None]
    rep = [r.report for r in runs if r.report is not None]
    prov = doc.provenance
    job = JobSpec(job_id=doc.job_id, campaign_id=doc.campaign_id, mode="exploratory", suite=doc.suite or "",
                  suite_hash=doc.suite_hash or "", spec=doc.archetype or "", app_slug=doc.app_slug or "-",
                  variant=doc.variant, tier="explore", rep=0, swarm=prov.adapter or str(doc.data.get("swarm") or ""),
                  seed=int(doc.data.get("seed") or 0))
    result = JobResult(job=job, session_id=doc.session_id, host=doc.host,
                       status="error" if doc.overall == "error" else "done", verdict=last.verdict if last else None,
                       wall_secs=round(time.time() - started, 3), exit_code=runs[-1].exit_code if runs else None,
                       tasks_done=sum(len(r.done) for r in rep), tasks_failed=sum(len(r.failed) for r in rep),
                       idle_nodes=sorted(set(mon.flagged)), per_device=mon.per_device, error=doc.error,
                       started=started, finished=time.time(), provenance=prov)
    rec = record_from_result(result, turns=len(doc.turns),
                             extra={"workspace": doc.workspace, "brain": brain.name if brain else None,
                                    "usage": doc.data.get("brain_usage"), "monitor": mon.line(),
                                    "tweaked": any(t.tweak for t in doc.turns), "seed": doc.data.get("seed")})
    Ledger(cfg.ledger_dir).record(rec)


def run_session(cfg: Config, archetype: str, *, persona: str | None = None, seed: int = 1, turns: int | None = None,
                judge: bool = True, tweak: bool = False, variant: str = "mlx", adapter: str | None = None, brain=None,
                tweaker: str = "rule", campaign_id: str = "explore", progress: Progress | None = None) -> SessionDoc:
    """Run one exploratory session end to end and return its document (also written to runs/ and the ledger)."""
    check_archetype(archetype)
    say = progress or (lambda msg: None)
    adapter = adapter or cfg.swarm.adapter
    budget = turns or cfg.explore.default_turns
    brain = brain or get_brain(None, cfg)
    substrate: Substrate | None = pick_substrate(cfg, seed) if archetype == "continue-existing" else None
    started = time.time()
    doc = SessionDoc(session_id="", mode="exploratory", archetype=archetype, spec=archetype, variant=variant,
                     tier="explore", campaign_id=campaign_id, host=host_name(), started=started,
                     data={"persona": persona, "seed": seed, "turn_budget": budget, "judge": judge, "tweak": tweak,
                           "swarm": adapter, "brain": brain.name})
    say(f"{archetype}: asking the {brain.name} brain for an opener")
    try:
        op = open_session(brain, cfg, archetype, persona=persona, seed=seed, substrate=substrate,
                          sim_apps=buildable(cfg) if adapter == "sim" else None)
    except SwarmgymError as e:
        doc.session_id = new_session_id(archetype)
        doc.job_id = f"explore-{doc.session_id}"
        doc.error = ErrorInfo.of(e)
        doc.turns.append(Turn(n=1, kind="open", error=doc.error))
        return _finish(cfg, doc, brain, started, say)
    doc.session_id = new_session_id(op.app_slug)
    doc.job_id = f"explore-{doc.session_id}"
    doc.app_slug = op.app_slug
    ws = substrate.workspace if substrate else cfg.apps_dir / op.app_slug / doc.session_id
    doc.workspace = str(ws)
    doc.data.update({"opener": op.model_dump(mode="json", exclude={"checks"}),
                     "substrate": substrate.session_id if substrate else None})
    st = _State(cfg, doc, ws, list(op.checks), (op.mcp_server,) if op.mcp_server else (),
                op.visible_requirements + op.hidden_requirements)
    judge_fn = Judge(brain, max_reasks=cfg.brain.max_reasks) if judge else None
    kind, prompt, n = ("feature" if substrate else "open"), op.prompt, 0
    for step in range(1, budget + 1):
        n += 1
        say(f"turn {n} ({kind}): running the swarm in {ws}")
        turn = _turn(st, n, kind, prompt, adapter=adapter, variant=variant, judge=judge_fn, seed=seed * 100 + step)
        doc.turns.append(turn)
        say(f"turn {n}: {turn.verdict.overall if turn.verdict else 'error'}; fleet "
            f"{(turn.data.get('monitor') or {}) and monitor_turn(turn).line()}")
        if turn.error is not None:
            break
        if tweak:
            rerun = _tweak(st, turn, brain, tweaker, adapter=adapter, variant=variant, judge=judge_fn,
                           seed=seed * 100 + step, say=say)
            if rerun is not None:
                n += 1
                doc.turns.append(rerun)
                turn = rerun
        if step == budget:
            break
        try:
            move = _next_move(brain, cfg, st, turn, step, budget, archetype, persona, simulated=adapter == "sim")
        except SwarmgymError as e:
            doc.error = ErrorInfo.of(e)
            say(f"brain error: {e}")
            break
        say(f"next move: {move.move} — {move.rationale[:100]}")
        if move.move == "done":
            doc.data["ended"] = f"brain said done after turn {n}: {move.rationale}"
            break
        st.checks = merge_checks(st.checks, move.checks, n + 1)
        if move.expected_tool:
            server = move.expected_tool.split("__", 1)[0]
            st.mcp = tuple(dict.fromkeys([*st.mcp, server]))
        kind, prompt = move.move, move.prompt
    return _finish(cfg, doc, brain, started, say, st.checks)


def _next_move(brain, cfg: Config, st: _State, turn: Turn, step: int, budget: int, archetype: str,
               persona: str | None, *, simulated: bool = False) -> NextMove:
    return ask_json(brain, "next_move", prompts.next_move_system(archetype, persona, simulated),
                    prompts.next_move_user(_state_for_brain(st, turn, step, budget)), NextMove, cfg.brain.max_reasks)


def _finish(cfg: Config, doc: SessionDoc, brain, started: float, say: Progress, checks: Sequence[Check] = ()) -> SessionDoc:
    last = doc.turns[-1] if doc.turns else None
    if last is not None and last.verdict is not None and last.error is None:  # the app as it stands now
        doc.overall, doc.functional = last.verdict.overall, last.verdict.functional
    else:
        doc.overall, doc.functional = "error", False
    mon = monitor_session(doc.turns)
    doc.data.update({"checks": [c.model_dump(mode="json", exclude_defaults=True) for c in checks],
                     "monitor": mon.model_dump(mode="json"), "brain_usage": brain.usage.as_dict()})
    doc.finished = time.time()
    try:
        write_session(cfg.runs_dir, doc, secrets=cfg.secrets)
    except Exception as e:  # the verdict stands even if the report could not be written
        log.exception("session %s: run folder not written", doc.session_id)
        doc.data["report_error"] = ErrorInfo.of(e).model_dump()
        say(f"could not write {cfg.runs_dir / doc.session_id}: {e}")
    _record(cfg, doc, brain, started)
    say(f"session {doc.session_id}: {doc.overall} ({len(doc.turns)} turn(s)); fleet {mon.line()}")
    return doc
