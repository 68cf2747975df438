"""Tollgate's runner client for asyncio: park on an elicitation and move on when its verdict comes.

It reconnects with backoff and jitter and resumes every wait by id, so no verdict is lost to a
dropped socket; each wait ends once, with the first verdict for its id. A local deadline (the
server's, plus a grace) ends a wait even when Tollgate cannot be reached.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from ._link import Link, check_url
from ._supervisor import RETRY_WITH_NEW_LINK, Supervisor, Timing, Token
from ._waits import Seen, Wait
from .errors import TollgateError
from .frames import Session, SessionMessage, Verdict, check_id, elicit_frame, encode, hellos, message_of, session_of, sessions_of, timeout_of, verdict_of

MessageCallback = Callable[[SessionMessage], Awaitable[None] | None]

DEFAULT_TIMEOUT_SECONDS = 86_400  # Tollgate's default deadline: one day
_RESEND_CONFLICTS = 5
_ANNOUNCE_EVERY_SECONDS = 30.0


class TollgateRunner:
    """A runner's connection to Tollgate. Use as ``async with TollgateRunner(url, token, sessions=[...]) as runner:``.

    ``token`` is a bearer JWT (role ``runner`` or ``service``), or a function returning a fresh one,
    called at every connect. ``ping_interval`` keeps the socket under API Gateway's 10-minute idle
    limit; ``deadline_grace`` is how long past the server's deadline a wait still listens for the
    server's own verdict before it ends as ``decline``/``timeout`` locally.
    """

    def __init__(
        self,
        url: str,
        token: Token,
        sessions: Iterable[Session | str] = (),
        *,
        on_message: MessageCallback | None = None,
        backoff: tuple[float, float] = (0.1, 5.0),
        ping_interval: float = 240.0,
        reply_timeout: float = 30.0,
        deadline_grace: float = 60.0,
        connect_timeout: float = 30.0,
        max_in_flight: int = 32,
        remember: int = 10_000,
    ) -> None:
        self._sessions = sessions_of(sessions)
        self._timing = Timing(backoff, ping_interval, reply_timeout, connect_timeout)
        self._deadline_grace = deadline_grace
        self._connection = Supervisor(check_url(url), token, self._timing, self._on_frame, self._greet, self._end_waits)
        self._waits: dict[str, Wait] = {}
        # Raises on their way at once: a burst past this waits its turn, so a lost socket loses few.
        self._in_flight = asyncio.Semaphore(max_in_flight)
        self._seen_messages = Seen(remember)
        self._listeners: list[MessageCallback] = [on_message] if on_message else []
        self._inbox: asyncio.Queue[SessionMessage] = asyncio.Queue()
        self._listening = asyncio.Event()
        self._started = False
        self._tasks: set[asyncio.Task[Any]] = set()

    async def __aenter__(self) -> TollgateRunner:
        try:
            await self.connect()
        except BaseException:
            await self.close()  # refused (or cancelled): its tasks end here, as __aexit__ is not called
            raise
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    @property
    def connection_id(self) -> str | None:
        """The id Tollgate gave the live connection (it changes at every reconnect)."""
        link = self._connection.link
        return link.connection_id if link else None

    async def connect(self) -> None:
        """Connect and say ``hello``; returns once Tollgate has bound the sessions."""
        self._start()
        await self._connection.live()

    def _start(self) -> None:
        if not self._started and not self._connection.closed:
            self._started = True
            self._connection.start()
            self._spawn(self._dispatch_messages())

    def on_message(self, callback: MessageCallback) -> Callable[[], None]:
        """Call ``callback`` (plain or async) for every message and notice, in order, each once. Returns an unsubscribe."""
        self._listeners.append(callback)
        self._listening.set()
        return lambda: self._listeners.remove(callback)

    async def add_session(self, session: Session | str) -> None:
        """Register and bind another session, now and at every reconnect."""
        await self._ensure_session(session_of(session), force=True)

    def has_pending(self, session_id: str) -> bool:
        """True while this runner waits on an elicitation of that session (its message gate is shut)."""
        return any(w.session_id == session_id and not w.cancelling and not w.future.done() for w in self._waits.values())

    async def elicit(
        self, session_id: str, params: Mapping[str, Any], elicitation_id: str | None = None, timeout_seconds: float | None = None
    ) -> Verdict:
        """Raise an elicitation and wait for its verdict. Cancelling the awaiting task cancels the elicitation.

        A request Tollgate would refuse (limits, ids) raises :class:`TollgateError` before anything is sent.
        """
        eid = elicitation_id or f"elicit_{uuid.uuid4().hex}"
        timeout = timeout_of(timeout_seconds)
        frame = elicit_frame(session_id, eid, params, timeout)
        encode({**frame, "ref": 0})  # the frame limit, checked before the wait exists
        budget = (timeout or DEFAULT_TIMEOUT_SECONDS) + self._deadline_grace
        return await self._wait(eid, session_id, frame, budget)

    async def attach(self, elicitation_id: str, session_id: str, timeout_seconds: float | None = None) -> Verdict:
        """Wait on an elicitation raised elsewhere (e.g. by the agent platform over HTTP) by its id.

        At ``timeout_seconds`` (default one day) the wait ends ``decline``/``timeout`` and the
        elicitation is cancelled on Tollgate, so the human's card closes.
        """
        session_of(session_id)
        check_id(elicitation_id, "elicitation_id")
        budget = DEFAULT_TIMEOUT_SECONDS if timeout_seconds is None else timeout_seconds
        return await self._wait(elicitation_id, session_id, None, budget)

    async def wait_for_user_approval(
        self, session_id: str, params: Mapping[str, Any], elicitation_id: str | None = None, timeout_seconds: float | None = None
    ) -> bool:
        """True only when a human accepted; a decline, a timeout or a cancel is False."""
        return (await self.elicit(session_id, params, elicitation_id, timeout_seconds)).approved

    async def cancel(self, elicitation_id: str) -> Verdict:
        """Give up waiting: the elicitation resolves ``cancel``/``cancelled`` (unless it had resolved) and its wait ends.

        A cancel lost with its connection, or refused because the connection's token ran out, goes again on the next one.
        """
        stale = None
        while True:
            link = await self._connection.live(after=stale)
            try:
                reply = await link.request({"action": "cancel", "elicitation_id": elicitation_id}, "elicitation.verdict", self._timing.reply_timeout)
                break
            except TollgateError as error:
                if error.code not in RETRY_WITH_NEW_LINK:
                    raise
                stale = link
        verdict = verdict_of(reply)
        if verdict is None:
            raise TollgateError("bad_reply", "the cancel's verdict frame is not valid")
        return verdict

    async def close(self) -> None:
        """Let cancels on their way land (briefly), then close; waits still open fail with ``closed``."""
        if self._connection.closed:
            return
        cancels = [w.future for w in self._waits.values() if w.cancelling]
        if cancels and self._connection.link is not None:
            await asyncio.wait(cancels, timeout=min(self._timing.reply_timeout, 5.0))
        self._end_waits(TollgateError("closed", "runner closed"))
        for task in self._tasks:
            task.cancel()
        await self._connection.close()

    # ---- waits ----

    async def _wait(self, eid: str, session_id: str, frame: dict[str, Any] | None, budget: float) -> Verdict:
        if eid in self._waits:
            raise TollgateError("conflict", f"this runner already waits on {eid}")
        self._connection.raise_if_ended()
        await self._ensure_session(Session(session_id) if session_id not in self._sessions else self._sessions[session_id])
        wait = Wait(eid, session_id, frame, asyncio.get_running_loop().create_future())
        self._waits[eid] = wait
        wait.arm(budget, self._expire)
        self._start()  # not connected yet: the wait still ends at its local deadline
        self._spawn(self._park(wait) if frame is not None else self._announce(wait))
        try:
            return await asyncio.shield(wait.future)
        except asyncio.CancelledError:
            self._give_up(wait)
            raise
        finally:
            if not wait.cancelling:
                self._forget(wait)

    def _on_verdict(self, verdict: Verdict) -> None:
        wait = self._waits.get(verdict.elicitation_id)
        if wait is None:
            return  # a verdict this runner does not wait on (any more): a duplicate, or one it gave up
        wait.settle(verdict)
        self._forget(wait)

    def _forget(self, wait: Wait) -> None:
        wait.disarm()
        if self._waits.get(wait.elicitation_id) is wait:
            del self._waits[wait.elicitation_id]

    def _expire(self, wait: Wait) -> None:
        """The local deadline: the wait ends ``decline``/``timeout``; one only attached to is cancelled on Tollgate."""
        if wait.cancelling or wait.future.done():
            self._forget(wait)
            return
        wait.settle(wait.local_timeout())
        if wait.frame is not None:
            self._forget(wait)
            return
        wait.cancelling = True
        wait.arm(self._deadline_grace, self._expire)  # the cancel gets this long to land
        self._spawn(self._send_cancel(wait))

    def _give_up(self, wait: Wait) -> None:
        if wait.future.done():
            return
        wait.cancelling = True
        if wait.parked or wait.frame is None:
            self._spawn(self._send_cancel(wait))
        # not parked yet: the park sends the cancel once Tollgate has it

    def _alive(self, wait: Wait) -> bool:
        return not self._connection.closed and self._waits.get(wait.elicitation_id) is wait

    async def _park(self, wait: Wait) -> None:
        """Send the ``elicit`` until Tollgate has it; after a reconnect, the ``hello``'s resume binds it again."""
        if wait.parking or wait.parked:
            return
        wait.parking, stale, attempt, sends = True, None, 0, 0
        try:
            while self._alive(wait) and not wait.parked:
                link = await self._connection.live(after=stale)
                try:
                    async with self._in_flight:
                        if wait.cancelling and sends == 0:
                            self._forget(wait)  # given up before it was sent: nothing to raise, nothing to cancel
                            return
                        sends += 1
                        reply = await link.request(wait.frame or {}, "elicitation.parked", self._timing.reply_timeout)
                except TollgateError as error:
                    if error.code in RETRY_WITH_NEW_LINK:
                        stale = link
                    elif error.passing or (error.code == "conflict" and sends > 1 and attempt < _RESEND_CONFLICTS):
                        # A re-send may meet the first send still being created on Tollgate's side: a conflict that passes.
                        await asyncio.sleep(self._connection.pause(attempt, error))
                        attempt += 1
                    else:
                        wait.fail(error)
                        self._forget(wait)
                    continue
                wait.parked = True
                if not self._alive(wait):
                    return  # its verdict came with the reply
                self._adopt_deadline(wait, reply.get("deadline"))
                if wait.cancelling:
                    self._spawn(self._send_cancel(wait))
        finally:
            wait.parking = False

    async def _announce(self, wait: Wait) -> None:
        """Bind an elicitation raised elsewhere to this connection: a ``hello`` resuming its id.

        Tollgate skips an id it does not know yet, so the ``hello`` goes again, less and less often,
        until the verdict comes: an elicitation raised after the wait began is still found.
        """
        stale, attempt = None, 0
        while self._alive(wait) and not wait.cancelling:
            link = await self._connection.live(after=stale)
            try:
                await link.request({"action": "hello", "sessions": [], "resume": [wait.elicitation_id]}, "hello.ok", self._timing.reply_timeout)
            except TollgateError as error:
                if error.code not in RETRY_WITH_NEW_LINK:
                    wait.fail(error)
                    self._forget(wait)
                stale = link
                continue
            wait.parked = True
            await asyncio.sleep(min(_ANNOUNCE_EVERY_SECONDS, 0.25 * 2 ** min(attempt, 8)))
            attempt += 1

    async def _send_cancel(self, wait: Wait) -> None:
        """A given-up wait's cancel: again on the next connection when one is lost, after a pause when one passes."""
        if wait.cancel_sending:
            return
        wait.cancel_sending, stale, attempt = True, None, 0
        try:
            while self._alive(wait):
                link = await self._connection.live(after=stale)
                try:
                    await link.request({"action": "cancel", "elicitation_id": wait.elicitation_id}, "elicitation.verdict", self._timing.reply_timeout)
                    return  # its verdict frame ended the wait
                except TollgateError as error:
                    if error.code in RETRY_WITH_NEW_LINK:
                        stale = link
                    elif error.passing:
                        await asyncio.sleep(self._connection.pause(attempt, error))
                        attempt += 1
                    else:
                        self._forget(wait)  # nothing to cancel (unknown, or not this runner's)
        except TollgateError:
            self._forget(wait)
        finally:
            wait.cancel_sending = False

    def _adopt_deadline(self, wait: Wait, deadline: object) -> None:
        """The local deadline follows the server's: its deadline, plus the grace for its own verdict to arrive."""
        if not isinstance(deadline, str):
            return
        try:
            at = datetime.fromisoformat(deadline.replace("Z", "+00:00"))
        except ValueError:
            return
        wait.arm((at - datetime.now(timezone.utc)).total_seconds() + self._deadline_grace, self._expire)

    # ---- sessions and messages ----

    async def _ensure_session(self, session: Session, force: bool = False) -> None:
        if session.session_id in self._sessions and not force:
            return
        self._sessions[session.session_id] = session
        link = self._connection.link
        if link is None:
            return  # the next hello carries it
        try:
            await link.request({"action": "hello", "sessions": [session.wire()], "resume": []}, "hello.ok", self._timing.reply_timeout)
        except TollgateError as error:
            if error.code not in RETRY_WITH_NEW_LINK:
                del self._sessions[session.session_id]
                raise

    async def _dispatch_messages(self) -> None:
        """Messages reach the callbacks in order, one at a time; none is dropped while no callback is set."""
        while True:
            message = await self._inbox.get()
            while not self._listeners:
                self._listening.clear()
                await self._listening.wait()
            for listener in list(self._listeners):
                try:
                    result = listener(message)
                    if inspect.isawaitable(result):
                        await result
                except Exception as error:  # a listener's failure is its own; the next message still comes
                    asyncio.get_running_loop().call_exception_handler({"message": "on_message callback failed", "exception": error})

    def _on_frame(self, frame: dict[str, Any]) -> None:
        if frame.get("type") == "elicitation.verdict":
            verdict = verdict_of(frame)
            if verdict is not None:
                self._on_verdict(verdict)
        elif frame.get("type") == "session.message":
            message = message_of(frame)
            if message is not None and self._seen_messages.add(message.message_id):
                self._inbox.put_nowait(message)

    # ---- the connection ----

    async def _greet(self, link: Link) -> None:
        """``hello`` with every session and every wait's id (several frames when they do not fit in one)."""
        for hello in hellos(list(self._sessions.values()), list(self._waits)):
            reply = await link.request(hello.frame(), "hello.ok", self._timing.reply_timeout)
            link.connection_id = str(reply.get("connection_id"))

    def _end_waits(self, error: TollgateError) -> None:
        for wait in list(self._waits.values()):
            wait.fail(error)
            self._forget(wait)

    def _spawn(self, coroutine: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
