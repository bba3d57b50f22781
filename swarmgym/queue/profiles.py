"""Host profiles: what a kind of fleet host serves and how its worker runs.

Built in: ``mlx`` (macOS / Apple silicon, MLX builds served by LM Studio) and ``gguf`` (Linux,
llama.cpp / LM Studio GGUF builds).  ``<home>/hosts.yaml`` may add or override profiles::

    profiles:
      mlx-studio: {variant: mlx, env: {LMSTUDIO_HOST: "http://127.0.0.1:1234"}}

``swarmgym worker --variant NAME`` takes NAME as a profile if one exists (its variant and env),
else as a plain variant label.  Env values are defaults: the process env wins.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from swarmgym.core.errors import ConfigError
from swarmgym.core.yamlfile import read_yaml


@dataclass(frozen=True)
class HostProfile:
    name: str
    variant: str
    platform: str = "any"
    env: dict[str, str] = field(default_factory=dict)
    note: str = ""


BUILTIN = {
    "mlx": HostProfile("mlx", "mlx", "macos", {}, "Apple silicon; launchd plist deploy/launchd/"),
    "gguf": HostProfile("gguf", "gguf", "linux", {}, "llama.cpp / LM Studio; systemd unit deploy/systemd/"),
}


def load_profiles(cfg) -> dict[str, HostProfile]:
    out = dict(BUILTIN)
    path = cfg.home / "hosts.yaml"
    if not path.is_file():
        return out
    data = read_yaml(path, ConfigError, empty_ok=True)
    for name, d in (data.get("profiles") or {}).items():
        if not isinstance(d, dict) or not isinstance(d.get("variant"), str):
            raise ConfigError(f"{path}: profiles.{name}: expected a mapping with a 'variant' string")
        env = d.get("env") or {}
        if not isinstance(env, dict):
            raise ConfigError(f"{path}: profiles.{name}.env: expected a mapping of NAME: value")
        out[name] = HostProfile(name, d["variant"], str(d.get("platform", "any")),
                                {str(k): str(v) for k, v in env.items()}, str(d.get("note", "")))
    return out


def resolve_profile(cfg, name: str | None) -> HostProfile | None:
    if not name:
        return None
    return load_profiles(cfg).get(name) or HostProfile(name, name)
