"""One table of options: every option of every command is a setting of the typed config.

    @setting("checks.timeout", "--check-timeout", type=float)

binds ``--check-timeout`` to the key ``checks.timeout`` (:mod:`swarmgym.config`, :mod:`swarmgym.config.options`).
Its one env var is the key's (``SWARMGYM_CHECKS_TIMEOUT``), its help is the key's description with that env
var, the key and the default, and when the command runs its value comes from the typed config: the option
if given, else the env var, ``.env``, ``config.yaml``, the default — so an option, its env var and
``config.yaml`` can never disagree, on any command, nested or not.  Commands read their options as
parameters as before; :func:`config_from` returns the config they came from.

To add an option: add the key (with its description and default) to the config, then ``@setting(key,
"--flag", …)`` on the command.  ``tests/cli/test_options.py`` walks every command and fails on an option that
is not a setting, on two flags for one key, and on a stale ``docs/config.md``; regenerate that file with
``python -m swarmgym.cli.configdoc > docs/config.md``.  Older names stay readable with a warning: the
per-command env vars (``SWARMGYM_BENCH_CHECK_TIMEOUT``, ``SWARMGYM_HOSTS_KEY_LIST_AS_JSON``, …) are derived
here, the short ones are :data:`swarmgym.config.DEPRECATED_ENV`.
"""
from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

import click
from click.core import ParameterSource

from swarmgym.config import DEPRECATED_ENV, Config, deprecation, env_name, keys, load_config, value_of

CONFIG = "swarmgym.config"
GIVEN = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT, ParameterSource.PROMPT)


class SettingOption(click.Option):
    """A click option bound to one config key (see the module docstring)."""

    def __init__(self, param_decls: Any, *, key: str, deprecated_alias: bool = False, **attrs: Any) -> None:
        fields = keys()
        if key not in fields:
            raise ValueError(f"option {param_decls}: no config key {key!r} (add it to swarmgym.config/options)")
        self.key = key
        self.deprecated_alias = deprecated_alias
        attrs["envvar"] = None if deprecated_alias else env_name(key)
        attrs["default"] = None  # the config's default: the value is filled in from the config (bind())
        attrs.setdefault("help", fields[key][1].description or "")
        attrs["show_default"] = False
        attrs["hidden"] = attrs.get("hidden", False) or deprecated_alias
        super().__init__(param_decls, **attrs)

    def process_value(self, ctx: click.Context, value: Any) -> Any:
        try:
            return super().process_value(ctx, value)
        except click.BadParameter as e:  # say where a bad value came from: the option or its env var
            if self.name and ctx.get_parameter_source(self.name) is ParameterSource.ENVIRONMENT:
                raise click.BadParameter(f"{e.message} (from the env var {self.envvar})", ctx=e.ctx,
                                         param=e.param, param_hint=e.param_hint) from None
            raise

    @property
    def flag(self) -> str:
        """The option's name on the command line (its longest flag)."""
        return max(self.opts, key=len)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        record = super().get_help_record(ctx)
        if record is None:
            return None
        names, text = record
        if self.key == "campaign.tier":
            text = tier_help(ctx) or text
        cfg = help_config(ctx)
        now = shown_default(self.key) if cfg is None else _shown(value_of(cfg, self.key))
        return names, f"{text}  [env {self.envvar}; {self.key}; default {now}]"

    def from_config(self, cfg: Config) -> Any:
        """The option's value as the command receives it, from the typed config."""
        value = value_of(cfg, self.key)
        if self.multiple or (self.nargs > 1 and value is not None):
            return tuple(value) if value else (() if self.multiple else None)
        return value


def setting(key: str, *param_decls: str, **attrs: Any) -> Callable:
    """``@click.option`` for a setting: ``@setting("campaign.tier", "--tier", type=click.Choice(TIERS))``."""
    return click.option(*param_decls, cls=SettingOption, key=key, **attrs)


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, list):
        return " ".join(map(str, value)) or "none"
    return str(value).lower() if isinstance(value, bool) else str(value)


def shown_default(key: str) -> str:
    """A key's built-in default, as docs/config.md shows it (a computed one is described, not shown)."""
    field = keys()[key][1]
    if field.default_factory is not None:
        value = field.default_factory()
        return _shown(value) if isinstance(value, list | dict) else "see the description"
    return _shown(field.default)


def help_config(ctx: click.Context) -> Config | None:
    """The config of the home ``--help`` is asked in (once per help screen): defaults shown are this
    home's; None when it cannot be read (help shows the built-in defaults then)."""
    root = ctx.find_root()
    if "help_config" not in root.meta:
        try:
            root.meta["help_config"] = load_config(root.params.get("home") or root.params.get("root"))
        except Exception:  # noqa: BLE001 - help must show, whatever the config says
            root.meta["help_config"] = None
    return root.meta["help_config"]


def tier_help(ctx: click.Context) -> str | None:
    """The tiers' sizes for the suite this home runs (``enqueue --help`` on a nine-spec suite says light 9x1)."""
    cfg = help_config(ctx)
    if cfg is None:
        return None
    try:
        from swarmgym.campaigns.plan import tier_shape
        from swarmgym.models import TIERS
        from swarmgym.suitekit.suite import load_suite

        suite = load_suite(cfg.suite, cfg.suites_dir)
    except Exception:  # noqa: BLE001 - help must show, whatever the suite says
        return None
    sizes = ", ".join(f"{t} {'x'.join(map(str, tier_shape(t, len(suite.specs))))}" for t in TIERS)
    return (f"how many runs (specs x reps) of suite {suite.name}, {len(suite.specs)} specs: {sizes} "
            "(extreme: on the hard prompts)")


# --- values: from the typed config, for every command ----------------------------------------------------

def _chain(ctx: click.Context) -> list[click.Context]:
    out = []
    c: click.Context | None = ctx
    while c is not None:
        out.append(c)
        c = c.parent
    return out[::-1]


def command_names(ctx: click.Context) -> list[str]:
    """The command's path of names under the root (``hosts key list`` -> hosts, key, list)."""
    return [c.info_name or "" for c in _chain(ctx)[1:]]


def old_env_names(path: list[str] | tuple[str, ...], opt: SettingOption) -> list[str]:
    """The env vars the option ``opt`` of the command at ``path`` answered to before (click's automatic
    ``SWARMGYM_<COMMAND>_<PARAM>`` and the documented ``SWARMGYM_<COMMAND>_<FLAG>``) that are not its one
    name now; still read, with a warning."""
    if opt.deprecated_alias:
        return []
    base = "_".join(["SWARMGYM", *path]).upper().replace("-", "_")
    names = {f"{base}_{opt.name}".upper(), f"{base}_{opt.flag.lstrip('-').split('/')[0]}".upper().replace("-", "_")}
    return sorted(n for n in names if n != opt.envvar and n not in DEPRECATED_ENV and n not in env_names())


@functools.cache
def env_names() -> frozenset[str]:
    return frozenset(env_name(k) for k in keys())


def command_config(ctx: click.Context, extra: dict[str, Any] | None = None) -> Config:
    """The config of the running command: the options given on the command line or by their env var (root
    first, then each subcommand), the older env names (with a warning), then ``extra``."""
    overrides: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for c in _chain(ctx):
        for p in c.command.params:
            if not isinstance(p, SettingOption) or p.name is None:
                continue
            src = c.get_parameter_source(p.name)
            value = c.params.get(p.name)
            if src in GIVEN and value is not None and value != ():
                if p.deprecated_alias:
                    deprecation(p.flag, next(o.flag for o in _settings(c.command) if o.key == p.key and
                                             not o.deprecated_alias))
                overrides[p.key] = list(value) if isinstance(value, tuple) else value
                origins[p.key] = p.flag if src is not ParameterSource.ENVIRONMENT else str(p.envvar)
            elif not p.deprecated_alias and p.key not in overrides:
                for old in old_env_names(command_names(c), p):
                    if old in os.environ:
                        deprecation(old, f"{p.envvar} ({p.key})")
                        overrides[p.key] = _env_value(p, os.environ[old])
                        origins[p.key] = old
                        break
    overrides.update({k: v for k, v in (extra or {}).items() if v is not None})
    home = overrides.pop("home", None)
    cfg = load_config(home, overrides=overrides, origins=origins)
    ctx.meta[CONFIG] = cfg
    return cfg


def _env_value(p: SettingOption, raw: str) -> Any:
    value = p.type_cast_value(click.get_current_context(), raw.split() if p.multiple or p.nargs > 1 else raw)
    return list(value) if isinstance(value, tuple) else value


def _settings(cmd: click.Command) -> list[SettingOption]:
    return [p for p in cmd.params if isinstance(p, SettingOption)]


def bind(cmd: click.Command) -> None:
    """Make ``cmd`` receive its setting options from the typed config (once)."""
    settings = [p for p in _settings(cmd) if not p.deprecated_alias]
    if cmd.callback is None or getattr(cmd.callback, "_settings_bound", False):
        return
    inner = cmd.callback

    @functools.wraps(inner)
    def run(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        cfg = command_config(ctx)
        for p in settings:
            if p.name in kwargs:
                kwargs[p.name] = p.from_config(cfg)
        for p in _settings(cmd):
            if p.deprecated_alias and p.name in kwargs:
                kwargs[p.name] = None  # folded into its setting above
        return inner(*args, **kwargs)

    run._settings_bound = True  # type: ignore[attr-defined]
    cmd.callback = run


def commands(group: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command under ``group`` (itself first) with its path of names."""
    yield path, group
    if isinstance(group, click.Group):
        for name in sorted(group.commands):
            yield from commands(group.commands[name], (*path, name))


def bind_all(root: click.Group) -> None:
    """Bind every command under ``root`` (a group's own options, such as the root's ``--home``, are read by
    its subcommands' :func:`command_config`)."""
    for _, cmd in commands(root):
        if not isinstance(cmd, click.Group):
            bind(cmd)

