"""What the brain is told: the system prompts and user messages of exploratory mode."""
from __future__ import annotations

import json
from typing import Any

from swarmgym.trust.untrusted import RULE, Fence

ROLE = """You are the brain of swarmgym's exploratory mode. You play a real user of a coding swarm — a fleet of
small local models that builds software from one prompt — and you decide what to ask it for. The harness
never trusts the swarm's self-report: it grades the app by RUNNING your golden checks against it."""

CHECK_RULES = """Golden checks (the "checks" list) are deterministic and run from the app workspace root after every
build. Each is {"name": unique short id, "kind": one of the five kinds, ...}:
  - command_succeeds {"run": bash command}: passes iff it exits 0. Assert real output, e.g.
    python3 -m <app_slug> eval '2^3^2' | grep -qE '(^|[^0-9])512([^0-9]|$)'
  - file_exists {"path"}, file_contains {"path", "text"}, file_matches {"path", "pattern" (regex)}
  - tool_called {"tool"}: an MCP tool the swarm must have called (e.g. "context7__resolve-library-id")
Paths are relative to the workspace (no absolute paths, no '..'). Commands run sandboxed: own process
group, time limit, no network, no secrets in the environment. A Python app runs as `python3 -m <app_slug>`
from the workspace root. Pick golden values you computed yourself, before the build."""

ARCHETYPES = {
    "heavy-spec": """Invent a NEW small command-line app with a dense, explicit spec: features, exact file/CLI surface,
error behaviour and acceptance criteria, buildable in one shot. Put the whole spec in "prompt" and list
its requirements in "visible_requirements". Stress: satisfying a fully specified brief without drift.""",
    "minimal-spec": """Invent a NEW small app the way a lazy user asks for it: "prompt" is a terse one-liner. Push the
real engineering (edge cases, error handling, persistence, docs) into "hidden_requirements" — the swarm
never sees them, but the checks and the judge hold it to them. Name an MCP tool the swarm should use in
"expected_tool" (server__tool, e.g. "context7__resolve-library-id" for library docs) and add a
tool_called check for it. Stress: inference from underspecification and tool use.""",
    "continue-existing": """Extend an EXISTING app that is green today: ask for one feature on top of it in "prompt".
Keep "app_slug" as given. Your new checks test the feature; the app's earlier checks are kept and re-run as
regression checks, so its old behaviour must still work. Stress: code comprehension and non-regression.""",
}

MOVES_HELP = """Moves: feature (add something), fix (a failing check or bug), tests (ask for tests), refactor,
mcp-feature (a feature that needs an MCP tool: set "expected_tool"), change-direction (a new requirement that
changes the design), done (stop: the app is good or hopeless; prompt may be empty). New checks are ADDED to
the existing ones — old checks stay as regression checks — so only add checks for what this turn asks."""


SIM_OPENER = """The swarm in this session is swarmgym's SIMULATOR (swarmgym-sim), not a model fleet. It can only
build the apps listed below, and builds one when your prompt names its app_slug as a word (or is its prompt
verbatim); any other prompt gets a README and a stub app.py, or nothing, and cannot pass. Pick one: set
"app_slug" to it, name it in "prompt", and write checks for the behaviour its prompt specifies (it runs as
`python3 -m <app_slug>` from the workspace). Now and then the simulator injects a fault (a liar, a stub, a
crash), as small models do: that is what your checks are for."""

SIM_NEXT_MOVE = """The swarm is swarmgym's SIMULATOR: every prompt must name the app_slug again; the simulator then
rebuilds the same app as its specification describes, so your earlier checks keep passing. It writes no new
code: a feature outside that specification cannot pass. Ask for what the specification already covers (tests,
a fix, a refactor), or say done."""


def opener_system(archetype: str) -> str:
    return f"{ROLE}\n\nThis session's archetype is {archetype}.\n{ARCHETYPES[archetype]}\n\n{CHECK_RULES}"


def opener_user(archetype: str, *, persona: str | None, seed: int, substrate: dict[str, Any] | None = None,
                sim_apps: list[dict[str, Any]] | None = None) -> str:
    lines = [f"Session seed: {seed} (vary your idea with it).",
             f"Persona: {persona}" if persona else "Persona: a pragmatic developer who wants a working tool.",
             "Language: python (standard library only) unless the persona says otherwise."]
    if substrate:
        lines.append("The existing app:\n" + json.dumps(substrate, indent=1))
    if sim_apps:
        lines.append(f"{SIM_OPENER}\nThe apps it can build ({', '.join(a['app_slug'] for a in sim_apps)}), each with "
                     "the prompt that specifies it:\n" + json.dumps(sim_apps, indent=1))
    lines.append('Reply as {"app_slug", "language", "prompt", "visible_requirements": [...], '
                 '"hidden_requirements": [...], "checks": [...], "expected_tool": null | "server__tool"}.')
    return "\n".join(lines)


def next_move_system(archetype: str, persona: str | None, simulated: bool = False) -> str:
    who = f" Your persona: {persona}." if persona else ""
    return (f"{ROLE}\n\nYou are reacting, turn by turn, to what the swarm built ({archetype} session).{who}\n"
            f"{MOVES_HELP}\n\n{CHECK_RULES}\n\n{RULE}" + (f"\n\n{SIM_NEXT_MOVE}" if simulated else ""))


def next_move_user(state: dict[str, Any]) -> str:
    """The session's state for the next move: check output, file names and findings come from the app under
    test, so the whole state is fenced as its data."""
    data = json.dumps(state, indent=1, default=str)[:30000]
    return ("Where the session stands (JSON; check results, file names and findings come from the app):\n"
            + Fence()("the session's state", data)
            + '\n\nReply as {"move", "prompt", "checks": [...], "rationale", "expected_tool": null}.')
