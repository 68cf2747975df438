"""The frames of Tollgate's WebSocket API, its limits, and the typed values a runner sees."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from .errors import TollgateError

Action = Literal["accept", "decline", "cancel"]
ACTIONS: frozenset[str] = frozenset({"accept", "decline", "cancel"})

# The contract's limits. API Gateway takes client frames of at most 32 KB (one frame per message).
FRAME_BYTES = 32 * 1024
PARAMS_BYTES = 24 * 1024
MESSAGE_CHARS = 4_000
TIMEOUT_SECONDS = (1, 604_800)
SESSIONS_PER_HELLO = 100
# Tollgate takes up to 1,000 per hello and works through one hello's ids in turn; smaller hellos resume side by side.
RESUME_PER_HELLO = 20
_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


@dataclass(frozen=True)
class Session:
    """A session this runner registers and binds at every ``hello``."""

    session_id: str
    parent_session_id: str | None = None
    title: str | None = None

    def wire(self) -> dict[str, str]:
        return {k: v for k, v in vars(self).items() if v is not None}


@dataclass(frozen=True)
class Verdict:
    """How an elicitation ended. ``reason``: ``answered``, ``timeout``, ``cancelled`` or ``runner_gone``."""

    elicitation_id: str
    session_id: str
    action: Action
    reason: str
    content: dict[str, Any] | None = None
    # The human's words with their answer, when they gave some.
    message: str | None = None
    # Who gave it: the `sub` of the token, `tollgate` for the server's deadline; None for the local deadline.
    resolved_by: str | None = None

    @property
    def approved(self) -> bool:
        return self.action == "accept"


@dataclass(frozen=True)
class SessionMessage:
    """A message or a notice for one of this runner's sessions (``kind``: ``message`` or ``notice``)."""

    session_id: str
    message_id: str
    kind: str
    text: str
    from_session_id: str | None = None


@dataclass
class Hello:
    sessions: list[dict[str, str]] = field(default_factory=list)
    resume: list[str] = field(default_factory=list)

    def frame(self) -> dict[str, Any]:
        return {"action": "hello", "sessions": self.sessions, "resume": self.resume}


def check_id(value: str, what: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise TollgateError("bad_request", f"{what} must be 1 to 128 characters of A-Z a-z 0-9 _ . : -")
    return value


def session_of(value: Session | str) -> Session:
    session = Session(value) if isinstance(value, str) else value
    check_id(session.session_id, "session_id")
    return session


def sessions_of(values: Iterable[Session | str]) -> dict[str, Session]:
    """The runner's sessions by id. One id alone is refused: a string is iterable, and would be read as its letters."""
    if isinstance(values, str):
        raise TollgateError("bad_request", f"sessions is a list of sessions or ids, as sessions=[{values!r}]")
    return {s.session_id: s for s in map(session_of, values)}


def timeout_of(seconds: float | None) -> int | None:
    """Whole seconds, rounded up, within the contract's range (None: Tollgate's default, one day)."""
    if seconds is None:
        return None
    # Not a finite number: refused as out of range, with the contract's code, not a TypeError of math.ceil.
    whole = math.ceil(seconds) if isinstance(seconds, (int, float)) and math.isfinite(seconds) else 0
    if not TIMEOUT_SECONDS[0] <= whole <= TIMEOUT_SECONDS[1]:
        raise TollgateError("bad_request", "timeout_seconds must be a number within 1 to 604,800")
    return whole


def elicit_frame(session_id: str, elicitation_id: str, params: Mapping[str, Any], timeout: int | None) -> dict[str, Any]:
    """The ``elicit`` frame, refused here as Tollgate would refuse it, so nothing is sent."""
    check_id(session_id, "session_id")
    check_id(elicitation_id, "elicitation_id")
    if not isinstance(params, Mapping):
        raise TollgateError("bad_request", "params must be an object with a message")
    message = params.get("message")
    if not isinstance(message, str) or not 1 <= len(message) <= MESSAGE_CHARS:
        raise TollgateError("bad_request", "params.message must be 1 to 4,000 characters")
    if len(to_json(params).encode()) > PARAMS_BYTES:
        raise TollgateError("payload_too_large", "params are larger than 24 KiB")
    frame: dict[str, Any] = {"action": "elicit", "session_id": session_id, "elicitation_id": elicitation_id, "params": dict(params)}
    if timeout is not None:
        frame["timeout_seconds"] = timeout
    return frame


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def encode(frame: Mapping[str, Any]) -> str:
    """A client frame as sent: refused before sending when it exceeds the 32 KB frame limit."""
    text = to_json(frame)
    size = len(text.encode())
    if size > FRAME_BYTES:
        raise TollgateError("payload_too_large", f"frame is {size} bytes; a WebSocket frame is at most {FRAME_BYTES}")
    return text


def hellos(sessions: Sequence[Session], resume: Sequence[str]) -> Iterator[Hello]:
    """As few ``hello`` frames as carry every session and resumed id within the frame limits."""
    budget = FRAME_BYTES - 256  # room for the frame's own keys and its ref
    hello, size = Hello(), 0
    items = [("sessions", s.wire()) for s in sessions] + [("resume", r) for r in resume]
    for key, item in items:
        cost = len(to_json(item).encode()) + 1
        full = len(hello.sessions) >= SESSIONS_PER_HELLO if key == "sessions" else len(hello.resume) >= RESUME_PER_HELLO
        if full or size + cost > budget:
            yield hello
            hello, size = Hello(), 0
        cast(list[Any], getattr(hello, key)).append(item)
        size += cost
    yield hello


def verdict_of(frame: Mapping[str, Any]) -> Verdict | None:
    action, content, message, resolved_by = frame.get("action"), frame.get("content"), frame.get("message"), frame.get("resolved_by")
    if action not in ACTIONS or not all(isinstance(frame.get(k), str) for k in ("elicitation_id", "session_id", "reason")):
        return None
    return Verdict(
        elicitation_id=frame["elicitation_id"],
        session_id=frame["session_id"],
        action=cast(Action, action),
        reason=frame["reason"],
        content=content if isinstance(content, dict) else None,
        message=message if isinstance(message, str) else None,
        resolved_by=resolved_by if isinstance(resolved_by, str) else None,
    )


def message_of(frame: Mapping[str, Any]) -> SessionMessage | None:
    if not all(isinstance(frame.get(k), str) for k in ("session_id", "message_id", "kind", "text")):
        return None
    sender = frame.get("from_session_id")
    return SessionMessage(frame["session_id"], frame["message_id"], frame["kind"], frame["text"], sender if isinstance(sender, str) else None)
