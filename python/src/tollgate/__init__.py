"""Tollgate's runner client: park an agent on a human's approval, with the guarantees of Tollgate's protocol."""

from .errors import TollgateError
from .frames import Session, SessionMessage, Verdict
from .runner import TollgateRunner

__all__ = ["Session", "SessionMessage", "TollgateError", "TollgateRunner", "Verdict"]
