"""Configuration: one typed place.

Sources, later wins: built-in defaults < ``<home>/config.yaml`` < ``<home>/.env`` < process env < the
command's own options.  Every leaf key ``section.key`` has one env var, ``SWARMGYM_SECTION_KEY``
(:func:`env_name`); older names (:data:`DEPRECATED_ENV`) are still read, with a warning.  The CLI's
options are settings too (:mod:`swarmgym.config.options`; docs/config.md lists every key).
Secrets are never config keys: they live in the environment or ``.env`` only.
"""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, field_validator

from swarmgym.config import options as opts
from swarmgym.core.errors import ConfigError
from swarmgym.core.yamlfile import read_yaml
from swarmgym.isolation import CHOICES as ISOLATION_CHOICES
from swarmgym.isolation.endpoints import parse_endpoint
from swarmgym.suitekit.suite import packaged_suites_dir

_Section = opts.Section


class ChecksConfig(_Section):
    timeout: float = Field(120.0, gt=0, description="seconds per golden check before its process group is killed")
    step_timeout: float = Field(10.0, gt=0, description="seconds a step of a differential table's row gets on the "
                                                        "fast path (a forked driver) before it is killed and its row "
                                                        "confirmed")
    confirm_timeout: float = Field(30.0, gt=0, description="seconds a step of a differential table's row gets when "
                                                           "confirmed as a real `python3 -m` subprocess; past it the "
                                                           "row fails with 'timed out after N s'")
    memory_mb: int = Field(2048, gt=0, description="address-space limit per check")
    cpu_secs: int = Field(300, gt=0, description="CPU-seconds limit per check")
    max_procs: int = Field(512, gt=0, description="process-count limit per check (RLIMIT_NPROC)")
    file_size_mb: int = Field(256, gt=0, description="largest file a check may write")
    ram_mb: int = Field(2048, gt=0, description="RAM + tmpfs pages of a check's whole box (memory cgroup); past "
                                                "it the kernel kills a process of the box and the check fails "
                                                "with 'exceeded its memory cap'")
    tmpfs_mb: int = Field(512, gt=0, description="size of each tmpfs in a check's box (/tmp, /dev/shm)")
    output_cap: int = Field(16384, gt=0, description="bytes of stdout/stderr tail kept per check")
    env: dict[str, str] = Field(default_factory=lambda: {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
                                description="extra env for checks; by default pytest does not autoload the "
                                            "plugins of swarmgym's own environment (hypothesis, celery, ...)")


class SwarmConfig(_Section):
    adapter: str = Field("sim", description="goose | sim | command")
    binary: str = Field("goose", description="path of the goose local-edition binary")
    timeout: float = Field(3600.0, gt=0, description="seconds before the swarm's process group is killed (exit 124)")
    mcp: list[str] = Field(default_factory=list, description="MCP servers passed as --mcp")
    command: list[str] = Field(default_factory=list, description="argv template with {prompt} for the command adapter")
    env: dict[str, str] = Field(default_factory=dict, description="extra env for the swarm (GOOSE_SWARM_* flags, MCP keys; goose sets LMSTUDIO_HOST itself from its pool config)")
    pass_secrets: list[str] = Field(default_factory=lambda: ["LMSTUDIO_API_KEY"],
                                    description="secret env vars the swarm itself may see (e.g. MCP keys); "
                                                "every other secret-looking variable is withheld from it. In a "
                                                "bubblewrap box a key an endpoint names (key_env, goose's "
                                                "LMSTUDIO_API_KEY) is added by the forwarder instead and never "
                                                "enters the box")
    endpoints: list[str | dict[str, str]] = Field(
        default_factory=list, description="model endpoints the swarm's box may reach besides goose's pool endpoint "
                                          "(and brain.local_endpoint with brain.provider local): a URL such as "
                                          "http://127.0.0.1:1234, or {url, key_env, header, listen}; nothing else "
                                          "is reachable from the box (docs/isolation.md)")
    sessions_db: str | None = Field(None, description="goose sessions.db read for a run that names none; default where goose keeps it "
                                                        "(GOOSE_PATH_ROOT, XDG_DATA_HOME, ~/.local/share/goose). A run "
                                                        "swarmgym starts reads its own per-job sessions.db")
    snapshot_max_files: int = Field(2000, gt=0)
    sessions_db_max_mb: int = Field(1024, gt=0, description="a larger goose sessions.db is not read (its traces "
                                                            "are reported missing)")

    @field_validator("endpoints")
    @classmethod
    def _valid_endpoints(cls, v: list) -> list:
        for n, entry in enumerate(v):
            try:
                parse_endpoint(entry, f"entry {n}")
            except ValueError as e:
                raise ValueError(f"URLs such as http://127.0.0.1:1234 or {{url, key_env, header, listen}}; {e}") from None
        return v

    @field_validator("adapter")
    @classmethod
    def _known_adapter(cls, v: str) -> str:
        from swarmgym.adapters import known_adapters

        if v not in known_adapters():
            raise ValueError(f"one of {', '.join(known_adapters())}")
        return v


class SandboxConfig(_Section):
    backend: str = Field("auto", description=f"isolation of checks and the swarm: {' | '.join(ISOLATION_CHOICES)} "
                                             "(auto: bwrap on Linux, seatbelt on macOS; none only when asked)")
    read_only: list[str] = Field(default_factory=list, description="extra paths boxes may read (inside hidden ones)")
    swarm_max_procs: int = Field(4096, gt=0, description="processes alive at once in the swarm's box")
    swarm_file_size_mb: int = Field(1024, gt=0, description="largest file the swarm may write")
    swarm_ram_mb: int = Field(4096, gt=0, description="RAM + tmpfs pages of the swarm's whole box (memory cgroup; "
                                                      "goose and every tool it runs, not the models it calls)")
    swarm_tmpfs_mb: int = Field(1024, gt=0, description="size of each tmpfs in the swarm's box (/tmp, /dev/shm)")
    workspace_mb: int = Field(1024, gt=0, description="disk of the swarm's workspace (and of goose's per-job "
                                                      "folder) while it runs: a tmpfs of this size in a bubblewrap box "
                                                      "(counted in sandbox.swarm_ram_mb), checked after the run "
                                                      "elsewhere; over it the swarm dimension fails with the budget")

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, v: str) -> str:
        if v not in ISOLATION_CHOICES:
            raise ValueError(f"one of {', '.join(ISOLATION_CHOICES)}")
        return v


class BrainConfig(_Section):
    provider: str = Field("claude", description="claude | local | operator")
    generator_model: str = "claude-sonnet-5-5"
    judge_model: str = "claude-opus-5-5"
    max_tokens: int = 4096
    anthropic_base_url: str | None = None
    local_endpoint: str = "http://127.0.0.1:1234/v1"
    local_model: str = "qwen2.5-coder-32b-instruct"
    local_max_tokens: int = 32768
    operator_poll_secs: float = 3.0
    operator_timeout_secs: float = 1800.0
    max_reasks: int = 2
    max_retries: int = 4

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, v: str) -> str:
        from swarmgym.brains import BRAINS

        if v not in BRAINS:
            raise ValueError(f"one of {', '.join(sorted(BRAINS))}")
        return v


class ExploreConfig(_Section):
    """Exploratory sessions (``once``, ``loop``, ``explore``)."""

    default_turns: int = Field(6, gt=0, le=50, description="turn budget of a session")
    judge: bool = Field(True, description="run the AI judge (off: the model-free signal only)")
    archetype: Literal["heavy-spec", "minimal-spec", "continue-existing"] | None = Field(
        None, description="how sessions open (once: heavy-spec; loop and explore: cycle the three)")
    persona: str | None = Field(None, description="who the brain plays (free text)")
    seed: int | None = Field(None, description="seed of the (first) session, +1 each (once: 1; loop, explore: 1000)")
    n: int = Field(3, ge=1, le=1000, description="sessions to run (loop, explore)")
    tweak: bool = Field(False, description="let the tweaker rebalance the fleet and re-run")
    tweaker: Literal["rule", "brain"] = Field("rule", description="who proposes knob changes: the model-free rule "
                                                                  "or the brain")


class QueueConfig(_Section):
    broker_url: str = "redis://127.0.0.1:6379/0"
    result_backend: str | None = None
    visibility_timeout: int = Field(172800, gt=0, description="seconds; longer than the longest job plus queue wait")
    result_expires: int = Field(604800, gt=0)
    lease_ttl: int = Field(120, gt=0, description="job lease expiry, renewed while the job runs")
    sample_hz: float = Field(1.0, gt=0, description="psutil samples per second during a job")
    artefact_cap_mb: float = Field(20.0, ge=0, description="largest artefact bundle shipped to the coordinator")
    soft_time_limit: int = Field(7200, ge=0, description="seconds; 0 = none (the hard limit alone)")
    time_limit: int = Field(7500, gt=0)
    reconcile_secs: float = Field(60.0, gt=0, description="how often beat runs reconcile (auto-resume)")
    dead_host_secs: float = Field(120.0, gt=0, description="a host silent this long (no lease renewal, no "
                                                           "heartbeat) is dead: its running job is re-sent")
    lost_grace: float = Field(900.0, ge=0, description="a job unseen (not queued/running/recorded) this long is re-sent")
    schedule_grace: float = Field(1800.0, gt=0, description="a cron window older than this is skipped, not run late")
    summary_ttl: int = Field(2592000, gt=0, description="seconds a finalized campaign's Redis summary is kept")
    coordinator_threads: int = Field(8, ge=1, le=64, description="record_job threads sharing one batched ledger writer")
    prefetch: int = Field(1, ge=1, description="messages a host worker reserves ahead; 1 for hour-long jobs "
                                               "(Celery's own default is 4)")
    acks_late: bool = Field(True, description="acknowledge a job when it ends, so a dead host's job is redelivered "
                                              "(Celery's own default acknowledges on receipt)")
    host_key_file: str | None = Field(None, description="this host's signing key (mode 0600, outside the home and "
                                                        "every box); default ~/.config/swarmgym/host.key")
    keyring_file: str | None = Field(None, description="the coordinator's trusted hosts (NAME HEXKEY lines, mode 0600); "
                                                       "default ~/.config/swarmgym/keyring")


AlarmVerdict = Literal["regressed", "improved"]


class TrendConfig(_Section):
    """Change detection: every finished campaign against its arm's baseline (docs/trend.md)."""

    alpha: float = Field(0.05, gt=0, lt=1, description="level of the overall test per arm and night (Bonferroni "
                                                       "over the windows, Benjamini-Hochberg over the night's arms)")
    spec_alpha: float = Field(0.01, gt=0, lt=1, description="false-discovery rate of the per-spec tests "
                                                            "(Benjamini-Hochberg over the night's arms x specs)")
    windows: int = Field(3, ge=1, le=10, description="test the last 1..N campaigns since the last change together "
                                                     "against the pool before them")
    pool: int = Field(14, ge=1, le=365, description="at most this many campaigns of the series in the pooled baseline")
    settle: int = Field(1, ge=1, le=30, description="after a flagged change, the campaigns after it are a baseline once "
                                                    "there are this many (the nights before are not tested)")
    night_hours: float = Field(12.0, gt=0, description="campaigns planned this close share one FDR family (a night)")
    alarm_timeout: float = Field(60.0, gt=0, description="seconds an on_change command may run (then killed, "
                                                         "retried once)")
    arm: str | None = Field(None, description="swarmgym trend: only this arm, as bench-report names it, e.g. "
                                              "'mlx (sim)'")
    since: str | None = Field(None, description="swarmgym trend: only campaigns started since: a span (30d, 12h, 2w) "
                                                "or a date (2026-11-01)")
    spec: bool = Field(False, description="swarmgym trend: a column per spec as well")


class Schedule(_Section):
    name: str
    cron: str
    tier: Literal["smoke", "light", "medium", "high", "extreme"]
    variant: str
    timezone: str = "UTC"
    on_change: list[str] = Field(default_factory=list,
                                 description="argv run (no shell) with the campaign's change summary as JSON on stdin")
    on_change_when: list[AlarmVerdict] = Field(default_factory=lambda: list[AlarmVerdict](["regressed"]),
                                               description="the verdicts that run on_change")

    @field_validator("on_change")
    @classmethod
    def _argv(cls, v: list[str]) -> list[str]:
        if v and not v[0].strip():
            raise ValueError("a command: its first item names the program")
        return v


class Config(_Section):
    home: Path = Field(Path("."), description="the swarmgym home: where config.yaml and .env are read and ledger/, "
                                              "runs/, apps/ live")
    suites_dir: Path = Field(default_factory=packaged_suites_dir,
                             description="where suites are looked up by name; default: the suites shipped with swarmgym")
    suite: str = Field("bench-v6", description="the suite (a name under suites_dir, or a suite folder) that bench, "
                                               "enqueue, compare, verify, regrade and the suite commands use; bench-v5, "
                                               "bench-v4, bench-v3, bench-v2 and bench-v1 stay loadable")
    secrets: list[str] = Field(default_factory=list, description="extra env var names never passed to model-written code")
    checks: ChecksConfig = Field(default_factory=ChecksConfig)
    swarm: SwarmConfig = Field(default_factory=SwarmConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    brain: BrainConfig = Field(default_factory=BrainConfig)
    explore: ExploreConfig = Field(default_factory=ExploreConfig)
    queue: QueueConfig = Field(default_factory=QueueConfig)
    trend: TrendConfig = Field(default_factory=TrendConfig)
    schedules: list[Schedule] = Field(default_factory=list)
    # what the CLI's own options set (swarmgym.config.options): one section per shared idea or command
    campaign: opts.CampaignSettings = Field(default_factory=opts.CampaignSettings)
    output: opts.OutputSettings = Field(default_factory=opts.OutputSettings)
    fleet: opts.FleetSettings = Field(default_factory=opts.FleetSettings)
    bench: opts.BenchSettings = Field(default_factory=opts.BenchSettings)
    compare: opts.CompareSettings = Field(default_factory=opts.CompareSettings)
    tune: opts.TuneSettings = Field(default_factory=opts.TuneSettings)
    plan: opts.PlanSettings = Field(default_factory=opts.PlanSettings)
    report: opts.ReportSettings = Field(default_factory=opts.ReportSettings)
    verify: opts.VerifySettings = Field(default_factory=opts.VerifySettings)
    suitekit: opts.SuitekitSettings = Field(default_factory=opts.SuitekitSettings)
    enqueue: opts.EnqueueSettings = Field(default_factory=opts.EnqueueSettings)
    status: opts.StatusSettings = Field(default_factory=opts.StatusSettings)
    workers: opts.WorkersSettings = Field(default_factory=opts.WorkersSettings)
    worker: opts.WorkerSettings = Field(default_factory=opts.WorkerSettings)
    hosts: opts.HostsSettings = Field(default_factory=opts.HostsSettings)
    supervise: opts.SuperviseSettings = Field(default_factory=opts.SuperviseSettings)

    def schedule(self, name: str | None) -> Schedule | None:
        return next((s for s in self.schedules if s.name == name), None) if name else None

    @property
    def ledger_dir(self) -> Path:
        return self.home / "ledger"

    @property
    def runs_dir(self) -> Path:
        return self.home / "runs"

    @property
    def apps_dir(self) -> Path:
        return self.home / "apps"

    @property
    def result_url(self) -> str:
        return self.queue.result_backend or self.queue.broker_url


#: older names still read, each with a warning naming the one to use (docs/config.md, "Deprecated names")
DEPRECATED_ENV = {
    "SWARMGYM_CHECK_TIMEOUT": "checks.timeout",
    "SWARMGYM_BROKER_URL": "queue.broker_url",
    "SWARMGYM_RESULT_BACKEND": "queue.result_backend",
    "SWARMGYM_PROVIDER": "brain.provider",
    "SWARMGYM_SWARM": "swarm.adapter",
}
_WARNED: set[str] = set()


def env_name(key: str) -> str:
    """The one env var of a dotted key: ``checks.timeout`` -> ``SWARMGYM_CHECKS_TIMEOUT``."""
    return "SWARMGYM_" + key.replace(".", "_").upper()


@functools.cache
def keys() -> dict[str, tuple[str, Any]]:
    """Every settable key (``section.name`` or a top-level name) -> (its section or "", its pydantic field)."""
    out: dict[str, tuple[str, Any]] = {}
    for name, field in Config.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, _Section):
            for sub, f in ann.model_fields.items():
                out[f"{name}.{f.alias or sub}"] = (name, f)
        elif name != "schedules":
            out[name] = ("", field)
    return out


def env_keys() -> dict[str, str]:
    """Every canonical env var that sets a config key, mapped to its dotted key."""
    return {env_name(k): k for k in keys()}


def value_of(cfg: Config, key: str) -> Any:
    """The value of a dotted key in ``cfg`` (a field's alias, e.g. ``output.json``, is its key)."""
    obj: Any = cfg
    for part in key.split("."):
        fields = type(obj).model_fields
        attr = next((n for n, f in fields.items() if (f.alias or n) == part), part)
        obj = getattr(obj, attr)
    return obj


def deprecation(old: str, new: str, stream: Any = None) -> None:
    """Say once per process that ``old`` is an older name of ``new`` (an env var or an option)."""
    if old not in _WARNED:
        _WARNED.add(old)
        print(f"swarmgym: warning: {old} is deprecated; use {new}", file=stream or sys.stderr, flush=True)


def read_dotenv(path: Path) -> dict[str, str]:
    """Parse a ``.env`` file (KEY=VALUE lines, # comments, optional quotes)."""
    out: dict[str, str] = {}
    if not path.is_file():
        return out
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[7:]
        if "=" not in line:
            raise ConfigError(f"{path}:{n}: expected KEY=VALUE, got {line[:40]!r}")
        key, _, val = line.partition("=")
        val = val.strip()
        if len(val) >= 2 and val[0] == val[-1] and val[0] in "'\"":
            val = val[1:-1]
        out[key.strip()] = val
    return out


def _parse_env_value(raw: str) -> Any:
    try:
        return yaml.safe_load(raw) if raw.strip() else raw
    except yaml.YAMLError:
        return raw


def _set(data: dict, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for p in parts[:-1]:
        if data.get(p) is None:
            data[p] = {}
        if not isinstance(data[p], dict):
            return  # not a mapping: validation reports the section itself
        data = data[p]
    data[parts[-1]] = value


def _describe(err: Any) -> tuple[str, str]:
    loc = ".".join(str(x) for x in err["loc"])
    typ = err["type"]
    if typ == "extra_forbidden":
        return loc, "unknown key"
    msg = err["msg"].removeprefix("Input should be ").removeprefix("Value error, ")
    if typ in ("model_type", "dict_type"):
        msg = "a mapping of keys"
    return loc, f"expected {msg[:1].lower() + msg[1:]}, got {err.get('input')!r}"


def load_config(home: str | Path | None = None, *, environ: dict[str, str] | None = None,
                overrides: dict[str, Any] | None = None, origins: dict[str, str] | None = None) -> Config:
    """Build the config for ``home`` (default ``$SWARMGYM_HOME`` or the cwd); ``overrides`` (dotted keys)
    win over every other source, and a bad one is reported as ``origins[key]`` (the option that set it)."""
    env = dict(os.environ if environ is None else environ)
    home = Path(home or env.get("SWARMGYM_HOME") or ".").resolve()
    dotenv = read_dotenv(home / ".env")
    for k, v in dotenv.items():
        env.setdefault(k, v)
        if environ is None:  # the real process: secrets in .env work like exported ones (brains, swarm)
            os.environ.setdefault(k, v)
    path = home / "config.yaml"
    data: dict[str, Any] = {}
    if path.is_file():
        data = read_yaml(path, ConfigError, empty_ok=True)
    sources: dict[str, str] = {}
    for var, dotted in env_keys().items():
        if var in env and dotted != "home":
            _set(data, dotted, _parse_env_value(env[var]))
            sources[dotted] = var
    for var, dotted in DEPRECATED_ENV.items():
        if var in env and dotted not in sources:
            deprecation(var, f"{env_name(dotted)} ({dotted})")
            _set(data, dotted, _parse_env_value(env[var]))
            sources[dotted] = var
    for dotted, value in (overrides or {}).items():
        if value is not None:
            _set(data, dotted, value)
            sources[dotted] = (origins or {}).get(dotted) or "--" + dotted.split(".")[-1].replace("_", "-")
    data["home"] = home
    try:
        cfg = Config.model_validate(data)
    except ValidationError as e:
        loc, what = _describe(e.errors()[0])
        origin = sources.get(loc, str(path))
        raise ConfigError(f"{origin}: key {loc}: {what}") from None
    if not cfg.suites_dir.is_absolute():
        cfg.suites_dir = (home / cfg.suites_dir).resolve()
    return cfg
