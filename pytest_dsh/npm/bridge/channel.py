"""The driver's channel to a bridge: JSON lines over a replaceable transport.

:class:`BridgeChannel` is everything the Python half knows about the
protocol: it checks the greeting's protocol version and answers the bridge's
``hello``, sends only ops ``protocol.json`` declares, numbers requests, and
refuses a reply that is not the answer to the request it sent. What carries
the lines is a :class:`Transport`: the Node process
(:class:`~pytest_dsh.npm.bridge.process.NodeTransport`) is one, and
:class:`MemoryTransport` (a function answering each request, as httpx's
``MockTransport``) runs the driver with no Node at all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_dsh.errors import DshKitError, ImplementationError
from pytest_dsh.npm.bridge.json_text import STRICT, parse, stringify
from pytest_dsh.npm.bridge.protocol import (
    PROTOCOL_FILE,
    BridgeProtocol,
    BridgeProtocolError,
    kit_protocol,
)

__all__ = [
    "BridgeChannel",
    "BridgeCrashedError",
    "BridgeStartError",
    "ChannelBroken",
    "MemoryTransport",
    "NodeFailure",
    "RequestFailedError",
    "Transport",
    "failed",
    "ok",
]


class BridgeCrashedError(DshKitError, RuntimeError):
    """The Node process died or stopped answering."""


class BridgeStartError(ImplementationError):
    """The bridge could not put its host together (it says why in its greeting:
    a patch whose target this DSH host lacks, a module that does not load)."""


class ChannelBroken(Exception):
    """A transport can no longer carry lines (``reason`` says why);
    ``out_of_budget``: it gave up because the test's wall-clock budget ran out."""

    def __init__(self, reason: str, *, out_of_budget: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.out_of_budget = out_of_budget


@dataclass(frozen=True, slots=True)
class NodeFailure:
    """An error the bridge reported; the driver maps ``kind`` to an exception."""

    kind: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)


class RequestFailedError(Exception):
    """A failed request with the sync payload that came with it."""

    def __init__(self, failure: NodeFailure, sync: dict[str, Any]) -> None:
        super().__init__(failure.message)
        self.failure = failure
        self.sync = sync


class Transport(Protocol):
    """What carries the channel's lines (one JSON text each, no newline)."""

    def send(self, line: bytes) -> None:
        """Write one line; raise :class:`ChannelBroken` when it cannot."""

    def receive(self) -> bytes:
        """The next line; raise :class:`ChannelBroken` when none comes."""

    def stop(self) -> None:
        """End the other side at once (it can no longer be trusted)."""

    def close(self) -> None:
        """End the other side in order (idempotent)."""

    def running(self) -> bool:
        """Whether the other side is still there."""

    def diagnostics(self) -> str:
        """What the other side said on the way out (its stderr tail), for errors."""


def _excerpt(line: bytes | str) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return repr(text if len(text) <= 200 else text[:200] + "...")


class BridgeChannel:
    """A bridge reached over ``transport``, speaking ``protocol`` (the kit's own
    declaration unless given): greeted and checked when constructed."""

    def __init__(
        self, transport: Transport, *, where: str = "?", protocol: BridgeProtocol | None = None
    ) -> None:
        self._transport = transport
        self.protocol = protocol or kit_protocol()
        self._next_id = 0
        #: Why the channel was stopped after a protocol failure (None while sound).
        self._failure: str | None = None
        #: The TZ value last sent to the bridge (a driver's business; kept per channel).
        self.sent_tz: str | None = None
        #: Check every result against its declared shape (DSH_BRIDGE_CHECK_SHAPES=1):
        #: how the kit's own tests keep protocol.json true; off by default (it costs).
        self.check_shapes = os.environ.get("DSH_BRIDGE_CHECK_SHAPES") == "1"
        greeting = self._read()
        error = greeting.get("error")
        if greeting.get("ready") is False and isinstance(error, dict):
            transport.close()
            raise BridgeStartError(
                f"the Node bridge at {where} could not start: {error.get('kind')}: "
                f"{error.get('message')}"
            )
        if not greeting.get("ready"):
            raise self._desynchronised(f"unexpected bridge greeting: {greeting!r}")
        try:
            self.protocol.check_greeting(greeting, where)
        except BaseException:
            transport.close()
            raise
        self.node_version: str = str(greeting.get("node", "?"))
        self.versions: dict[str, str] = dict(greeting.get("versions", {}))
        #: What the bridge found for each role: {package, version, invariant} or a problem.
        self.packages: dict[str, dict[str, Any]] = dict(greeting.get("packages", {}))
        # The other half checks our version too (a bridge refuses a kit it does not speak).
        try:
            self.request("hello", protocol=self.protocol.version)
        except RequestFailedError as refused:
            transport.close()
            raise BridgeProtocolError(
                f"the Node bridge at {where} refused this kit's protocol "
                f"{self.protocol.version}: {refused.failure.message}"
            ) from None

    @property
    def alive(self) -> bool:
        return self._failure is None and self._transport.running()

    def _read(self) -> dict[str, Any]:
        try:
            line = self._transport.receive()
        except ChannelBroken as broken:
            if broken.out_of_budget:
                from pytest_dsh.driving.runaway import RunawayError, budget

                error = self._desynchronised(broken.reason)
                raise RunawayError(
                    f"the bridge did not answer within the test's wall-clock budget of "
                    f"{budget.wall_s:g} s (--dsh-wall-budget): the implementation never "
                    f"settles; the Node process was stopped. {error}"
                ) from None
            raise self._desynchronised(broken.reason) from None
        try:
            # A plugin may append or return a value deeper than json.loads reads.
            reply = parse(line)
        except ValueError:
            raise self._desynchronised(
                f"the bridge sent a line that is not JSON: {_excerpt(line)}"
            ) from None
        if not isinstance(reply, dict):
            raise self._desynchronised(
                f"the bridge sent a line that is not a reply object: {_excerpt(line)}"
            )
        return reply

    def _desynchronised(self, reason: str) -> BridgeCrashedError:
        """Stop the other side (it can no longer be trusted to answer in step)
        and the error for the call that found out; later calls get the same reason."""
        self._transport.stop()
        self._failure = f"{reason}; the bridge process was stopped"
        return BridgeCrashedError(f"{self._failure}; stderr:\n{self._transport.diagnostics()}")

    def request(self, op: str, **args: Any) -> tuple[Any, dict[str, Any]]:
        """Send one request; return ``(result, sync)`` or raise :class:`RequestFailedError`.

        ``op`` and the names of ``args`` must be declared in ``protocol.json``
        (:class:`~pytest_dsh.npm.bridge.protocol.UndeclaredOpError` otherwise).
        A reply that is not the answer to this request (garbage, a line that is
        not JSON, an unsolicited or out-of-order reply) stops the other side and
        raises :class:`BridgeCrashedError`.
        """
        self.protocol.check_request(op, args)
        if self._failure is not None:
            raise BridgeCrashedError(f"this bridge process is unusable: {self._failure}")
        self._next_id += 1
        message = {"id": self._next_id, "op": op, **args}
        try:
            line = STRICT.encode(message)
        except (ValueError, RecursionError):
            # A non-finite float (spelled the bridge's way), or a value deeper
            # than json's recursion goes (written with an explicit stack).
            line = stringify(message, revivable=True)
        try:
            self._transport.send(line.encode("utf-8"))
        except ChannelBroken as broken:
            raise self._desynchronised(broken.reason) from None
        try:
            reply = self._read()
        except BaseException as exc:
            # Interrupted mid-request (a signal, Ctrl-C): the reply will arrive
            # later and be taken for the next one's; the channel is unusable.
            if self._failure is None:
                self._desynchronised(f"a request was interrupted ({type(exc).__name__})")
            raise
        if reply.get("id") != self._next_id or not isinstance(reply.get("ok"), bool):
            raise self._desynchronised(
                f"the bridge answered request {self._next_id} ({op}) with a reply that "
                f"is not its answer: {_excerpt(json.dumps(reply))}"
            )
        sync: dict[str, Any] = reply.get("sync") or {}
        if not reply["ok"]:
            error = dict(reply["error"])
            failure = NodeFailure(error.pop("kind"), error.pop("message"), error)
            raise RequestFailedError(failure, sync)
        if self.check_shapes:
            problem = self.protocol.result_problem(op, reply["result"])
            if problem is None:
                problem = self.protocol.sync_problem(sync)
            if problem is not None:
                raise self._desynchronised(
                    f"the reply to {op} departs from {PROTOCOL_FILE}: {problem}"
                )
        return reply["result"], sync

    def retire(self, reason: str) -> None:
        """Stop a channel whose host can no longer be trusted (its test ran
        away): later calls say ``reason``."""
        if self._failure is None:
            self._failure = f"{reason}; the bridge process was stopped"
        self._transport.stop()

    def close(self) -> None:
        """End the other side (idempotent; safe after a protocol failure)."""
        self._transport.close()


#: What a :class:`MemoryTransport` handler answers: a reply object, or a raw line.
Answer = Mapping[str, Any] | bytes


class MemoryTransport:
    """A bridge in memory: ``handler(request)`` answers each request.

    ``greeting`` is the line the bridge would print first (by default one for
    the kit's own protocol). The handler gets the decoded request
    (``{"id", "op", ...}``) and returns a reply object, or bytes sent as the
    raw line; it may raise :class:`ChannelBroken` to act as a dead bridge.
    The ``hello`` is answered as the Node server answers it (unless
    ``answer_hello`` is false: the handler gets it too); the default handler
    answers every other request with a ``null`` result.
    """

    def __init__(
        self,
        handler: Callable[[dict[str, Any]], Answer] | None = None,
        *,
        greeting: Mapping[str, Any] | None = None,
        answer_hello: bool = True,
    ) -> None:
        version = kit_protocol().version
        self.greeting: dict[str, Any] = dict(
            greeting
            if greeting is not None
            else {"ready": True, "protocol": version, "node": "memory", "versions": {},
                  "packages": {}, "fake_now": 0}
        )
        self._handler = handler or (lambda request: ok(request, None))
        self._answer_hello = answer_hello
        self._outbox: list[bytes] = [json.dumps(self.greeting).encode()]
        #: Every request received, decoded, in order.
        self.requests: list[dict[str, Any]] = []
        self._running = True

    def send(self, line: bytes) -> None:
        if not self._running:
            raise ChannelBroken("the in-memory bridge is stopped")
        request = json.loads(line)
        self.requests.append(request)
        if self._answer_hello and request.get("op") == "hello":
            hello = {key: self.greeting.get(key) for key in ("protocol", "node", "versions")}
            answer: Answer = ok(request, {**hello, "plugins": []})
        else:
            answer = self._handler(request)
        self._outbox.append(answer if isinstance(answer, bytes) else json.dumps(answer).encode())

    def receive(self) -> bytes:
        if not self._outbox:
            raise ChannelBroken("the in-memory bridge has nothing to say")
        return self._outbox.pop(0)

    def stop(self) -> None:
        self._running = False

    def close(self) -> None:
        self._running = False

    def running(self) -> bool:
        return self._running

    def diagnostics(self) -> str:
        return ""


def ok(request: Mapping[str, Any], result: Any, **sync: Any) -> dict[str, Any]:
    """A successful reply to ``request`` (for :class:`MemoryTransport` handlers)."""
    return {"id": request["id"], "ok": True, "result": result, "sync": {"now": 0, **sync}}


def failed(request: Mapping[str, Any], kind: str, message: str, **details: Any) -> dict[str, Any]:
    """A failed reply to ``request`` (for :class:`MemoryTransport` handlers)."""
    error = {"kind": kind, "message": message, **details}
    return {"id": request["id"], "ok": False, "error": error, "sync": {"now": 0}}
