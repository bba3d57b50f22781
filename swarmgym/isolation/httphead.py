"""Set one header on every HTTP/1.1 request of a byte stream, passing everything else through as it comes.

The forwarder uses it where an endpoint needs a key (``key_env``): the box's client sends its requests
without the key (or with a dummy one), and :class:`HeaderSetter` replaces that header — and ``Host``,
when the endpoint is not the address the box used — on each request head, on the host side.  Only
request *heads* are held (up to :data:`MAX_HEAD` bytes); bodies stream through as they arrive, framed by
``Content-Length`` or ``Transfer-Encoding: chunked`` so that the next request's head is found on a
kept-alive connection.  A request that upgrades the connection (``Upgrade``, ``CONNECT``) turns the
rest of the stream into plain bytes.  A malformed head raises :class:`ValueError` (the forwarder then
closes the connection: nothing unchecked reaches the endpoint).
"""
from __future__ import annotations

MAX_HEAD = 64 * 1024
MAX_LINE = 8 * 1024


class HeaderSetter:
    """Feed it the box→endpoint bytes; it returns what to send on."""

    def __init__(self, name: str, value: str, host: str | None = None) -> None:
        self.name = name.strip()
        self.drop = {self.name.lower().encode(), *([b"host"] if host else [])}
        self.extra = f"{self.name}: {value}\r\n".encode() + (f"Host: {host}\r\n".encode() if host else b"")
        self.state = "head"
        self.buf = b""
        self.left = 0  # body bytes (or chunk bytes + CRLF) still to pass

    def feed(self, data: bytes) -> bytes:
        self.buf += data
        out = bytearray()
        while self.buf:
            if self.state == "raw":
                out += self.buf
                self.buf = b""
            elif self.state in ("body", "chunk-data"):
                take = self.buf[:self.left]
                out += take
                self.buf = self.buf[len(take):]
                self.left -= len(take)
                if self.left == 0:
                    self.state = "head" if self.state == "body" else "chunk-size"
            elif self.state == "head":
                end = self.buf.find(b"\r\n\r\n")
                if end < 0:
                    if len(self.buf) > MAX_HEAD:
                        raise ValueError("request head too large")
                    break
                head, self.buf = self.buf[:end + 4], self.buf[end + 4:]
                out += self._rewrite(head)
            else:  # chunk-size, trailer: one line at a time
                end = self.buf.find(b"\r\n")
                if end < 0:
                    if len(self.buf) > MAX_LINE:
                        raise ValueError("chunk line too long")
                    break
                line, self.buf = self.buf[:end + 2], self.buf[end + 2:]
                out += line
                if self.state == "trailer":
                    if line == b"\r\n":
                        self.state = "head"
                    continue
                size_text = line[:-2].split(b";", 1)[0].strip()
                try:
                    size = int(size_text, 16)
                except ValueError:
                    raise ValueError(f"bad chunk size {size_text[:20]!r}") from None
                if size == 0:
                    self.state = "trailer"
                else:
                    self.state, self.left = "chunk-data", size + 2
        return bytes(out)

    def _rewrite(self, head: bytes) -> bytes:
        lines = head[:-4].split(b"\r\n")
        request = lines[0].split(b" ")
        if len(request) != 3 or not request[2].startswith(b"HTTP/1."):
            raise ValueError(f"not an HTTP/1.x request line: {lines[0][:60]!r}")
        kept, length, chunked, upgrade = [lines[0]], 0, False, request[0] == b"CONNECT"
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep or not name or name != name.strip():
                raise ValueError(f"malformed header line {line[:60]!r}")
            key = name.lower()
            if key in self.drop:
                continue
            if key == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    raise ValueError("bad Content-Length") from None
                if length < 0:
                    raise ValueError("bad Content-Length")
            elif key == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif key == b"upgrade":
                upgrade = True
            kept.append(line)
        if upgrade:
            self.state = "raw"
        elif chunked:
            self.state = "chunk-size"
        elif length:
            self.state, self.left = "body", length
        return b"\r\n".join(kept) + b"\r\n" + self.extra + b"\r\n"
