"""A minimal headless-Chromium driver for tests: the DevTools protocol over a pipe.

Chromium started with ``--remote-debugging-pipe`` reads protocol commands from
file descriptor 3 and writes replies and events to descriptor 4, each message a
NUL-terminated JSON object. That needs no WebSocket client and no open port.
The driver records console errors, uncaught exceptions and error log entries,
evaluates JavaScript and takes PNG screenshots, which :func:`decode_png` reads
back into pixels with the standard library only.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import struct
import subprocess
import threading
import time
import zlib
from typing import Any, Dict, List, Optional, Tuple

import pytest

#: The flags of the report's browser test (and of the CI script).
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
]


def find_chromium() -> Optional[str]:
    """The Chromium binary on PATH (Debian's package installs ``chromium``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    """The browser failed, answered with an error or did not answer in time."""


class Chromium:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, binary: str, user_data_dir: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.errors: List[str] = []
        self.requests: List[str] = []
        self._events: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self._replies: Dict[int, Dict[str, Any]] = {}
        self._cond = threading.Condition()
        self._next_id = 0
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:  # in the child: its fd 3 reads our commands, fd 4 writes replies
            a = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
            b = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={user_data_dir}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=wire, close_fds=False,  # Python's own descriptors are not inheritable
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.session = self._attach()

    # ------------------------------------------------------------ transport
    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                break
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    with self._cond:
                        self._replies[message["id"]] = message
                        self._cond.notify_all()
                else:
                    self._on_event(message)
        with self._cond:
            self._cond.notify_all()

    def _on_event(self, event: Dict[str, Any]) -> None:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append("exception: " + str(details.get("exception", {}).get("description")
                                                  or details.get("text")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            texts = [str(a.get("value", a.get("description", ""))) for a in params.get("args", [])]
            self.errors.append("console." + params["type"] + ": " + " ".join(texts))
        elif method == "Network.requestWillBeSent":
            self.requests.append(params.get("request", {}).get("url", ""))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}")
        self._events.put(event)

    def send(self, method: str, params: Optional[Dict[str, Any]] = None, session: bool = True) -> Dict[str, Any]:
        """Send one command and wait for its result; raises :class:`BrowserError` on error."""
        self._next_id += 1
        message: Dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and getattr(self, "session", None):
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        with self._cond:
            while self._next_id not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise BrowserError(f"no answer to {method}; stderr: {self.stderr[-2000:]!r}")
                self._cond.wait(min(left, 0.5))
            reply = self._replies.pop(self._next_id)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_for(self, method: str) -> Dict[str, Any]:
        """Wait for the next event called ``method``."""
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no {method} event within {self.timeout}s")
            try:
                event = self._events.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if event.get("method") == method:
                return event.get("params", {})

    # ------------------------------------------------------------ page API
    def _attach(self) -> str:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                            session=False)["sessionId"]
        self.session = session
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.send(f"{domain}.enable")
        return session

    def open(self, url: str, width: int = 1280, height: int = 900) -> None:
        """Load ``url`` in a ``width`` x ``height`` viewport and wait for its load event."""
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"evaluating {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, clip: Optional[Dict[str, float]] = None, full_page: bool = False,
                   scale: float = 1.0) -> bytes:
        """A PNG of the viewport, of ``clip`` (page coordinates) or of the whole page, zoomed by ``scale``."""
        params: Dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            clip = {"x": 0, "y": 0, "width": size[0], "height": size[1]}
        if clip is not None:
            params["clip"] = {**clip, "scale": scale}
        return base64.b64decode(self.send("Page.captureScreenshot", params)["data"])

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except BrowserError:
            pass
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)
        os.close(self._to_browser)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def decode_png(data: bytes) -> Tuple[int, int, List[bytearray]]:
    """(width, height, rows of RGBA bytes) of an 8-bit, non-interlaced RGB(A) or grey PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or interlace or channels is None:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: List[bytearray] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 255
            elif kind == 4:
                corner = prev[i - channels] if i >= channels else 0
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        prev = line
    rgba = []
    for line in rows:
        if channels == 4:
            rgba.append(line)
        elif channels == 3:
            out = bytearray(width * 4)
            out[0::4], out[1::4], out[2::4], out[3::4] = line[0::3], line[1::3], line[2::3], b"\xff" * width
            rgba.append(out)
        else:
            grey = line[0::channels]
            out = bytearray(width * 4)
            out[0::4] = out[1::4] = out[2::4] = grey
            out[3::4] = line[1::2] if channels == 2 else b"\xff" * width
            rgba.append(out)
    return width, height, rgba


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium per test module (skips when there is none); import it into the module."""
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium binary on PATH (Debian: apt-get install -y chromium)")
    with Chromium(binary, str(tmp_path_factory.mktemp("chromium-profile"))) as chromium:
        yield chromium
