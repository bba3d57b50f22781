"""The swarmgym config a Celery app was built from: :func:`swarmgym.queue.app.make_app` attaches it, and every
task and signal handler reads it back from its app here, so no task module imports the app module."""
from __future__ import annotations

from typing import Any

from swarmgym.config import Config, load_config


def attach_config(app: Any, cfg: Config) -> None:
    """Make ``cfg`` the config of ``app`` (what :func:`app_config` returns)."""
    app.swarmgym_config = cfg


def app_config(app: Any) -> Config:
    """The swarmgym config an app was built from (tasks read it through ``self.app``); an app built elsewhere
    gets the config of ``$SWARMGYM_HOME`` (or the cwd), once."""
    cfg = getattr(app, "swarmgym_config", None)
    if cfg is None:
        cfg = load_config()
        attach_config(app, cfg)
    return cfg
