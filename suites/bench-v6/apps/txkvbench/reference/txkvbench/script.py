"""Run a script of ';'-separated statements and collect the output lines."""
from __future__ import annotations

from txkvbench.engine import NO_TRANSACTION, CommandError, Engine

ARITY = {"SET": (2, 2), "GET": (1, 1), "DELETE": (1, 1), "COUNT": (0, 0), "KEYS": (0, 0),
         "INCR": (1, 2), "BEGIN": (0, 0), "ROLLBACK": (0, 0), "COMMIT": (0, 0)}


def statements(script: str) -> list[list[str]]:
    return [s.split() for s in script.split(";") if s.strip()]


def execute(engine: Engine, words: list[str]) -> str | None:
    """Run one statement; return the line it prints, if any."""
    cmd, args = words[0].upper(), words[1:]
    if cmd not in ARITY:
        raise CommandError(f"unknown command {words[0]}")
    lo, hi = ARITY[cmd]
    if not lo <= len(args) <= hi:
        raise CommandError(f"{cmd} takes {lo if lo == hi else f'{lo}-{hi}'} argument(s), got {len(args)}")
    if cmd == "SET":
        engine.set(args[0], args[1])
    elif cmd == "GET":
        value = engine.get(args[0])
        return "NULL" if value is None else value
    elif cmd == "DELETE":
        engine.delete(args[0])
    elif cmd == "COUNT":
        return str(len(engine.keys()))
    elif cmd == "KEYS":
        return " ".join(engine.keys())
    elif cmd == "INCR":
        try:
            by = int(args[1]) if len(args) > 1 else 1
        except ValueError:
            raise CommandError(f"INCR amount is not an integer: {args[1]}") from None
        return str(engine.incr(args[0], by))
    elif cmd == "BEGIN":
        engine.begin()
    elif cmd == "ROLLBACK":
        return None if engine.rollback() else NO_TRANSACTION
    elif cmd == "COMMIT":
        return None if engine.commit() else NO_TRANSACTION
    return None


def run_script(engine: Engine, script: str, emit) -> None:
    """Execute every statement, calling ``emit(line)`` for output; open transactions are discarded."""
    try:
        for words in statements(script):
            line = execute(engine, words)
            if line is not None:
                emit(line)
    finally:
        engine.abandon()
