"""The record source over the broker: the CLI asks, the coordinator answers from its own home.

:class:`BrokerSource` (the CLI's side) sends an :class:`~swarmgym.campaigns.records.Ask` as a
``swarmgym.ask`` task to the coordinator's question queue (``coordinator.ask``: a backlog of results
never delays it) with a reply key, and waits on that key (``BLPOP``).  The coordinator answers with
:class:`CoordinatorSource` — a :class:`~swarmgym.campaigns.records.LedgerSource` over its home whose
plans are found in Redis too and whose changed plans (``cancel``, ``resume``) are published back — and
pushes the answer to the reply key, which expires after :data:`REPLY_TTL` seconds.  So a CLI on a
machine that shares no disk with the coordinator reads exactly what the coordinator recorded.

A coordinator whose heartbeat went silent is not asked: :class:`CoordinatorGone` says why in one line at
once.  When no coordinator beats at all (none runs, or Redis just lost every key and the coordinator has
not beaten since), the question goes anyway and gets :data:`UNKNOWN_GRACE` seconds to be answered.
"""
from __future__ import annotations

import time
import uuid
from typing import Any

import redis

from swarmgym.campaigns.plan import Campaign, save_campaign
from swarmgym.campaigns.records import Answer, Ask, LedgerSource
from swarmgym.core.errors import QueueError
from swarmgym.queue import keys, plans, store
from swarmgym.queue.ledgers import ledger_for
from swarmgym.queue.liveness import private_client
from swarmgym.queue.preflight import coordinator_state
from swarmgym.queue.routing import ASK_QUEUE

REPLY_TTL = 60
ASK_TIMEOUT = 30.0
UNKNOWN_GRACE = 2.0  # seconds to wait for a coordinator no heartbeat vouches for (nor says stopped)
_BLOCK = 5  # seconds per BLPOP (below the client's socket timeout)


class CoordinatorGone(QueueError):
    """No coordinator is alive to answer, or none answered in time."""


class CoordinatorSource(LedgerSource):
    """What the coordinator answers with: its home's plans (else Redis's, kept) and its ledger; a plan it
    changes is published to Redis, and the campaign's status there follows."""

    def __init__(self, cfg: Any, r: redis.Redis) -> None:
        super().__init__(cfg, ledger_for(cfg))
        self.r = r

    def plan(self, cid: str) -> Campaign:
        return plans.find(self.cfg, cid, self.r)

    def plan_ids(self) -> list[str]:
        return plans.list_all(self.cfg, self.r)

    def save(self, camp: Campaign) -> None:
        save_campaign(self.cfg, camp)
        plans.publish(self.r, camp, self.cfg.queue.result_expires)
        store.ensure_redis(self.r, camp, "cancelled" if camp.cancelled else "running", opening=False)


def reply(r: redis.Redis, reply_to: str, answer: Answer) -> None:
    """Push ``answer`` where the asker waits (only to a reply key: a question names no other key)."""
    if not reply_to.startswith(keys.reply("")):
        raise QueueError(f"ask: reply key {reply_to!r} is not a {keys.reply('*')} key")
    pipe = r.pipeline(transaction=False)
    pipe.rpush(reply_to, answer.model_dump_json())
    pipe.expire(reply_to, REPLY_TTL)
    pipe.execute()


class BrokerSource:
    """Asks the coordinator over the broker (see the module's doc)."""

    def __init__(self, app: Any, cfg: Any, r: redis.Redis, timeout: float = ASK_TIMEOUT) -> None:
        self.app, self.cfg, self.r, self.timeout = app, cfg, r, timeout

    def ask(self, q: Ask) -> Answer:
        state, why = coordinator_state(self.cfg, self.r)
        gone = f"no coordinator is alive ({why}): it alone knows what was recorded"
        if state == "silent":
            raise CoordinatorGone(gone)
        wait = self.timeout if state == "alive" else min(self.timeout, UNKNOWN_GRACE)
        key = keys.reply(uuid.uuid4().hex)
        self.app.send_task(keys.ASK, args=[q.model_dump(mode="json"), key], queue=ASK_QUEUE, ignore_result=True,
                           expires=wait, argsrepr=repr([q.kind, *q.campaign_ids[:3]]), kwargsrepr="{}")
        waiter = private_client(self.cfg.queue.broker_url)
        deadline = time.monotonic() + wait
        try:
            while (left := deadline - time.monotonic()) > 0:
                got = waiter.blpop([key], timeout=max(1, min(_BLOCK, int(left))))
                if got:
                    return Answer.model_validate_json(got[1])
        finally:
            waiter.close()
        if state != "alive":
            raise CoordinatorGone(gone)
        raise CoordinatorGone(f"the coordinator did not answer within {wait:g}s (ask {q.kind}); "
                              "is it overloaded, or stopped? (`swarmgym workers`)")
