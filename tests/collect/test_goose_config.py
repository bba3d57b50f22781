"""goose's config copy per job: what goose needs (providers, pool, models), never a secret.

Fixtures follow goose local-edition's config: ``config.yaml`` with the ``swarm:`` block of
``SwarmConfig`` (``endpoint``, ``planner_model``, ``devices[]`` of ``SwarmDevice``;
crates/goose-cli/src/commands/swarm.rs) and extensions with ``envs``; ``secrets.yaml`` where goose keeps
keys with the keyring off.
"""
from __future__ import annotations

import json

import pytest
import yaml

from swarmgym.collect.goose_config import DEFAULT_ENDPOINT, copy_config, job_files, pool_endpoint, secret
from swarmgym.collect.goose_paths import config_hash, fresh_root
from swarmgym.core.errors import AdapterError

CONFIG = """GOOSE_PROVIDER: lmstudio
GOOSE_MODEL: qwen3-coder
GOOSE_DISABLE_KEYRING: true
LMSTUDIO_API_KEY: sk-lm-inline-1234
extensions:
  github:
    enabled: true
    envs:
      GITHUB_TOKEN: ghp_inline_5678
      GITHUB_HOST: github.com
    env_keys: [GITHUB_TOKEN]
  docs:
    uri: https://bob:hunter2@docs.example.com/sse
swarm:
  endpoint: http://studio.local:1234
  planner_model: qwen/qwen3.6-27b
  devices:
    - {id: studio, model_id: qwen3-coder-30b, weight: 2, enabled: true, instances: 1}
"""
SECRETS = ["sk-lm-inline-1234", "ghp_inline_5678", "hunter2", "sk-from-secrets-yaml", "env-file-key", "pem-body"]


def operator_config(root):
    cfg = root / "config"
    (cfg / "custom_providers").mkdir(parents=True)
    (cfg / "config.yaml").write_text(CONFIG)
    (cfg / "secrets.yaml").write_text("LMSTUDIO_API_KEY: sk-from-secrets-yaml\n")
    (cfg / ".env").write_text("OPENAI_API_KEY=env-file-key\n")
    (cfg / "tls.pem").write_text("pem-body\n")
    (cfg / "keyring.json").write_text('{"x": "pem-body"}')
    (cfg / "custom_providers" / "local.json").write_text(json.dumps({"name": "local", "api_key": "sk-lm-inline-1234",
                                                                     "base_url": "http://127.0.0.1:1234"}))
    (cfg / "swarm-pool.json").write_text('{"devices": {"studio": {"weight": 2}}}\n')
    return cfg


def test_the_copy_holds_providers_pool_and_models_and_no_secret(tmp_path):
    src = operator_config(tmp_path / "op")
    copy_config(src, tmp_path / "job")
    names = sorted(p.relative_to(tmp_path / "job").as_posix() for p in (tmp_path / "job").rglob("*") if p.is_file())
    assert names == ["config.yaml", "custom_providers/local.json", "swarm-pool.json"]
    text = "\n".join(p.read_text() for p in (tmp_path / "job").rglob("*") if p.is_file())
    assert [s for s in SECRETS if s in text] == []
    data = yaml.safe_load((tmp_path / "job" / "config.yaml").read_text())
    assert data["GOOSE_PROVIDER"] == "lmstudio" and data["GOOSE_DISABLE_KEYRING"] is True  # a switch, not a secret
    assert data["swarm"]["devices"][0]["model_id"] == "qwen3-coder-30b"
    assert data["extensions"]["github"]["envs"] == {"GITHUB_HOST": "github.com"}
    assert "uri" not in data["extensions"]["docs"]
    assert json.loads((tmp_path / "job" / "custom_providers" / "local.json").read_text())["base_url"]
    assert (tmp_path / "job" / "swarm-pool.json").read_bytes() == (src / "swarm-pool.json").read_bytes()  # untouched


def test_the_config_hash_is_the_copys_and_changes_with_the_config_but_not_with_a_secret(tmp_path):
    operator_config(tmp_path / "op")
    env = {"GOOSE_PATH_ROOT": str(tmp_path / "op")}
    first = config_hash(env)
    (tmp_path / "op" / "config" / "secrets.yaml").write_text("LMSTUDIO_API_KEY: another-secret\n")
    cfg = tmp_path / "op" / "config" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("sk-lm-inline-1234", "sk-rotated"))
    assert config_hash(env) == first  # keys rotate, the config is the same
    cfg.write_text(cfg.read_text().replace("qwen3-coder\n", "qwen3-coder-next\n"))
    assert config_hash(env) != first
    root = fresh_root(env, tmp_path / "apps" / ".goose-state" / "ws")
    assert [rel for rel, _ in job_files(tmp_path / "op" / "config")] == sorted(
        p.relative_to(root / "config").as_posix() for p in (root / "config").rglob("*") if p.is_file())


def test_a_config_file_swarmgym_cannot_read_is_refused_in_one_line(tmp_path):
    (tmp_path / "op" / "config").mkdir(parents=True)
    (tmp_path / "op" / "config" / "config.yaml").write_text("GOOSE_PROVIDER: [unclosed\n")
    with pytest.raises(AdapterError, match=r"goose config file config.yaml: not valid YAML .*fix or remove it"):
        copy_config(tmp_path / "op" / "config", tmp_path / "job")


def test_the_pool_endpoint_and_a_providers_key_are_read_as_goose_reads_them(tmp_path):
    src = operator_config(tmp_path / "op")
    assert pool_endpoint(src) == "http://studio.local:1234"
    assert pool_endpoint(tmp_path) is None and DEFAULT_ENDPOINT == "http://localhost:1234"
    assert secret("LMSTUDIO_API_KEY", src, {}) == "sk-from-secrets-yaml"
    assert secret("LMSTUDIO_API_KEY", src, {"LMSTUDIO_API_KEY": "from-env"}) == "from-env"  # the environment first
    assert secret("OTHER_KEY", src, {}) is None
