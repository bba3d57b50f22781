"""docs/config.md, generated from the typed config and the CLI's options (:mod:`swarmgym.cli.options`):
``python -m swarmgym.cli.configdoc > docs/config.md``; tests/cli/test_options.py checks it is up to date."""
from __future__ import annotations

import click

from swarmgym.cli.options import _settings, commands, old_env_names, shown_default
from swarmgym.config import DEPRECATED_ENV, Config, env_name, keys

DOC_HEAD = """# Configuration: every setting, its one env var, the options that set it

Generated from the typed config (`swarmgym/config/__init__.py`, `swarmgym/config/options.py`) and the CLI's options
(`swarmgym/cli/options.py`) by `python -m swarmgym.cli.configdoc > docs/config.md`; `tests/cli/test_options.py`
fails when this file is stale or when an option is not a setting.

Where a value comes from, later wins: the default below < the key in `<home>/config.yaml` < `<home>/.env` <
the env var in the process environment < the option on the command line. Every key has exactly one env var,
`SWARMGYM_<SECTION>_<NAME>` (a top-level key: `SWARMGYM_<NAME>`), and every option of every command — nested
ones too — is one of these keys: `--help` shows each option's env var, key and default (this home's). A bad
value is one line naming where it came from (the file, the env var or the option) and what was expected,
exit 2. Secrets are never keys: they live in the environment or `.env` only (README, "Configuration").
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_docs(root: click.Group) -> str:
    """docs/config.md for the CLI ``root``."""
    set_by: dict[str, list[str]] = {}
    old: list[tuple[str, str]] = []
    for path, cmd in commands(root):
        for p in _settings(cmd):
            where = " ".join(["swarmgym", *path]) + " " + "/".join(p.opts + p.secondary_opts)
            if p.deprecated_alias:
                new = next(o.flag for o in _settings(cmd) if o.key == p.key and not o.deprecated_alias)
                old.append((f"`{where}`", f"`{new}`"))
                continue
            set_by.setdefault(p.key, []).append(f"`{where}`")
            old += [(f"`{n}`", f"`{p.envvar}`") for n in old_env_names(path, p)]
    old += [(f"`{n}`", f"`{env_name(k)}`") for n, k in DEPRECATED_ENV.items()]
    out = [DOC_HEAD]
    by_section: dict[str, list[str]] = {}
    for key, (section, _) in keys().items():
        by_section.setdefault(section, []).append(key)
    for section, names in by_section.items():
        title = f"`{section}`" if section else "top level"
        ann = Config.model_fields[section].annotation if section else None
        doc = " ".join(((ann.__doc__ or "") if ann is not None else "").split())
        out += [f"## {title}", ""] + ([doc, ""] if doc and not doc.startswith("Usage docs") else [])
        out += ["| key | env var | default | options | what it sets |", "|---|---|---|---|---|"]
        for key in names:
            desc = keys()[key][1].description or ""
            out.append(f"| `{key}` | `{env_name(key)}` | `{_cell(shown_default(key))}` | "
                       f"{'<br>'.join(set_by.get(key, [])) or '–'} | {_cell(desc)} |")
        out.append("")
    out += ["## Deprecated names", "", "Still read, each with one warning line on stderr naming its replacement.", "",
            "| old name | use |", "|---|---|"]
    out += [f"| {a} | {b} |" for a, b in sorted(set(old))]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    from swarmgym.cli import cli

    print(render_docs(cli), end="")
