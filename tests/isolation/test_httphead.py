"""The forwarder's key: set on every request head of a kept-alive stream, bodies passed as they come."""
from __future__ import annotations

import pytest

from swarmgym.isolation.httphead import HeaderSetter


def feed_bytewise(setter: HeaderSetter, data: bytes) -> bytes:
    return b"".join(setter.feed(data[i:i + 1]) for i in range(len(data)))


def test_the_header_replaces_the_boxes_own_on_every_request_of_a_kept_alive_connection():
    stream = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:1234\r\nAuthorization: Bearer dummy\r\n"
              b"Content-Length: 11\r\n\r\nhello world"
              b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:1234\r\n\r\n")
    out = feed_bytewise(HeaderSetter("authorization", "Bearer real"), stream)
    assert out.count(b"authorization: Bearer real\r\n") == 2 and b"dummy" not in out
    assert b"\r\n\r\nhello world" in out and out.endswith(b"\r\n\r\n")


def test_a_chunked_body_streams_through_and_the_next_head_is_still_found():
    stream = (b"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
              b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"
              b"POST /b HTTP/1.1\r\nx-api-key: box-key\r\nContent-Length: 0\r\n\r\n")
    setter = HeaderSetter("x-api-key", "host-key", host="api.example.com:443")
    out = setter.feed(stream)
    assert out.count(b"x-api-key: host-key\r\n") == 2 and b"box-key" not in out
    assert out.count(b"Host: api.example.com:443\r\n") == 2
    assert b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n" in out


def test_body_bytes_pass_as_soon_as_they_arrive():
    setter = HeaderSetter("authorization", "Bearer k")
    head = setter.feed(b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
    assert head.endswith(b"abc")  # not held until the body is complete
    assert setter.feed(b"defg") == b"defg"


def test_an_upgraded_connection_becomes_plain_bytes():
    setter = HeaderSetter("authorization", "Bearer k")
    setter.feed(b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    assert setter.feed(b"GET not a head\r\n\r\n") == b"GET not a head\r\n\r\n"


@pytest.mark.parametrize("stream", [
    b"\x16\x03\x01\x02\x00 tls hello\r\n\r\n",  # TLS sent to a plain-HTTP listener
    b"POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
    b"POST / HTTP/1.1\r\nbad header line\r\n\r\n",
    b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
])
def test_a_malformed_request_is_refused(stream):
    with pytest.raises(ValueError):
        HeaderSetter("authorization", "Bearer k").feed(stream)


def test_an_endless_head_is_refused():
    with pytest.raises(ValueError, match="too large"):
        HeaderSetter("authorization", "Bearer k").feed(b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 20000)
