"""What the runner remembers: one record per elicitation it waits on, and a bounded memory of ids seen."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from .frames import Verdict


@dataclass(eq=False)
class Wait:
    """An elicitation this runner waits on, until its verdict arrives (or, once given up, its cancel lands)."""

    elicitation_id: str
    session_id: str
    # The `elicit` frame; None when the elicitation was raised elsewhere and this runner only waits on it.
    frame: dict[str, Any] | None
    future: asyncio.Future[Verdict]
    timer: asyncio.TimerHandle | None = None
    parked: bool = False
    parking: bool = False
    # Given up (the awaiting task was cancelled): its cancel goes again after every reconnect until it lands.
    cancelling: bool = False
    cancel_sending: bool = False

    def settle(self, verdict: Verdict) -> None:
        if not self.future.done():
            self.future.set_result(verdict)

    def fail(self, error: BaseException) -> None:
        if not self.future.done():
            self.future.set_exception(error)
            self.future.exception()  # retrieved here: nobody may await a wait that was given up

    def local_timeout(self) -> Verdict:
        return Verdict(self.elicitation_id, self.session_id, "decline", "timeout")

    def arm(self, delay: float, callback: Any) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = asyncio.get_running_loop().call_later(max(0.0, delay), callback, self)

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class Seen:
    """The last ``capacity`` ids, oldest forgotten first: a duplicate within that window is recognised."""

    def __init__(self, capacity: int) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._capacity = capacity

    def add(self, key: str) -> bool:
        """Remember ``key``; False when it was already remembered."""
        if key in self._ids:
            self._ids.move_to_end(key)
            return False
        self._ids[key] = None
        if len(self._ids) > self._capacity:
            self._ids.popitem(last=False)
        return True

    def __len__(self) -> int:
        return len(self._ids)
