"""Which model endpoints a swarm's box reaches, and where each answers inside the box."""
from __future__ import annotations

import pytest

from swarmgym.config import load_config
from swarmgym.core.errors import ConfigError
from swarmgym.isolation.endpoints import hosts_file, needs_low_ports, parse_endpoint, plan_routes, with_keys


def test_a_url_or_host_port_names_an_endpoint_and_its_box_address():
    ep = parse_endpoint("http://127.0.0.1:1234/v1")
    assert (ep.host, ep.port, ep.tls, ep.key_env) == ("127.0.0.1", 1234, False, None)
    assert parse_endpoint("studio.local:8080").port == 8080
    assert parse_endpoint("https://api.example.com").port == 443
    [r] = plan_routes([ep])
    assert r.listens == [("127.0.0.1", 1234)] and r.name is None


def test_localhost_answers_on_both_loopbacks_and_a_named_host_gets_a_loopback_address_and_a_hosts_line():
    routes = plan_routes([parse_endpoint("http://localhost:1234"), parse_endpoint("http://Studio.local:1234"),
                          parse_endpoint("http://mini:1234"), parse_endpoint("http://studio.local:9000")])
    assert routes[0].listens == [("127.0.0.1", 1234), ("::1", 1234)]
    assert routes[1].listen_host == routes[3].listen_host != routes[2].listen_host  # one address per host name
    assert routes[1].listen_host.startswith("127.") and routes[2].listen_host.startswith("127.")
    text = hosts_file(routes)
    assert f"{routes[1].listen_host}\tstudio.local" in text and f"{routes[2].listen_host}\tmini" in text
    assert "127.0.0.1\tlocalhost" in text
    assert len({r.sock for r in routes}) == 4


def test_the_same_endpoint_twice_is_one_route_and_two_endpoints_at_one_box_address_are_refused():
    assert len(plan_routes([parse_endpoint("http://127.0.0.1:1234"), parse_endpoint("127.0.0.1:1234")])) == 1
    [one] = plan_routes([parse_endpoint("http://127.0.0.1:1234/v1"),  # the brain's LM Studio, and goose's
                         parse_endpoint({"url": "http://localhost:1234", "key_env": "LMSTUDIO_API_KEY"})])
    assert one.endpoint.key_env == "LMSTUDIO_API_KEY" and one.listens == [("127.0.0.1", 1234), ("::1", 1234)]
    with pytest.raises(ValueError, match="would both answer at 127.0.0.1:1234"):
        plan_routes([parse_endpoint("http://127.0.0.1:1234"),
                     parse_endpoint({"url": "http://studio:1234", "listen": "127.0.0.1:1234"})])


def test_an_address_outside_the_loopback_by_number_is_refused_with_what_to_do_instead():
    with pytest.raises(ValueError, match="outside the loopback.*name the host"):
        plan_routes([parse_endpoint("http://192.168.1.20:1234")])
    [r] = plan_routes([parse_endpoint({"url": "http://192.168.1.20:1234", "listen": "127.0.0.1:1234"})])
    assert r.listens == [("127.0.0.1", 1234)] and r.endpoint.host == "192.168.1.20"


@pytest.mark.parametrize("value, message", [
    ("http://user:pw@127.0.0.1:1234", "holds credentials"),
    ("ftp://127.0.0.1:21", "expected an http or https URL"),
    ("http://127.0.0.1:99999", "port is not a number"),
    ({"url": "https://api.example.com", "key_env": "API_KEY"}, "needs listen"),
    ({"url": "http://127.0.0.1:1", "port": 2}, "unknown key 'port'"),
    ({"url": "http://127.0.0.1:1", "listen": "nowhere"}, "expected HOST:PORT"),
])
def test_a_bad_endpoint_is_one_line_naming_what_is_wrong(value, message):
    with pytest.raises(ValueError, match=message):
        parse_endpoint(value)


def test_a_key_is_attached_host_side_only_and_sent_as_a_bearer_token_or_its_own_header():
    routes = plan_routes([parse_endpoint({"url": "http://127.0.0.1:1234", "key_env": "LMSTUDIO_API_KEY"}),
                          parse_endpoint({"url": "https://api.example.com", "key_env": "EX_KEY", "header": "x-api-key",
                                          "listen": "127.0.0.1:8443"}),
                          parse_endpoint("http://127.0.0.1:9000")])
    keyed = with_keys(routes, {"LMSTUDIO_API_KEY": "lm-secret", "EX_KEY": "ex-secret"})
    assert keyed[0].header == ("authorization", "Bearer lm-secret")
    assert keyed[1].header == ("x-api-key", "ex-secret")
    assert keyed[2].header is None
    assert "lm-secret" not in repr(keyed) and "ex-secret" not in repr(keyed)
    assert with_keys(routes, {})[0].header is None  # no key set: requests pass untouched


def test_a_listener_below_1024_is_noticed():
    assert needs_low_ports(plan_routes([parse_endpoint("https://api.example.com")]))
    assert not needs_low_ports(plan_routes([parse_endpoint("http://127.0.0.1:1234")]))


def test_swarm_endpoints_in_the_config_are_checked_at_load(tmp_path):
    (tmp_path / "config.yaml").write_text("swarm:\n  endpoints: ['http://u:p@127.0.0.1:1234']\n")
    with pytest.raises(ConfigError, match=r"config.yaml: key swarm.endpoints: .*holds credentials"):
        load_config(tmp_path, environ={})
    (tmp_path / "config.yaml").write_text("swarm:\n  endpoints: ['http://127.0.0.1:1234', {url: 'studio:80'}]\n")
    assert len(load_config(tmp_path, environ={}).swarm.endpoints) == 2
