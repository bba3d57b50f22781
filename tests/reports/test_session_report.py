"""runs/<session_id>/: session.json, turn-<n>.json and a self-contained, escaped report.html."""
from __future__ import annotations

import json
import re

import pytest

from swarmgym.core.errors import UsageError
from swarmgym.models import SessionDoc, Turn
from swarmgym.reports.session import write_session


def test_session_folder_holds_session_json_each_turn_and_the_report(tmp_path, doc):
    paths = write_session(tmp_path, doc)
    folder = tmp_path / "sess-0001"
    assert paths == [folder / "session.json", folder / "turn-1.json", folder / "report.html"]
    assert SessionDoc.model_validate_json((folder / "session.json").read_text()) == doc
    assert Turn.model_validate_json((folder / "turn-1.json").read_text()) == doc.turns[0]
    assert sorted(p.name for p in folder.iterdir()) == ["report.html", "session.json", "turn-1.json"]


def test_check_output_is_escaped_in_the_report(tmp_path, doc_factory):
    doc = doc_factory(stdout_tail='<script>alert("pwn")</script> total: 24 & more',
                      prompt="Build <b>invtrack</b>")
    html = (write_session(tmp_path, doc)[-1]).read_text()
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#34;pwn&#34;)&lt;/script&gt; total: 24 &amp; more" in html
    assert "Build &lt;b&gt;invtrack&lt;/b&gt;" in html
    assert "Traceback: &lt;module&gt; boom" in html


def test_report_is_self_contained(tmp_path, doc):
    html = write_session(tmp_path, doc)[-1].read_text()
    assert "<style>" in html
    assert not re.search(r'(src|href)=["\']?(https?:|//)', html)
    assert "<link" not in html and "<script" not in html


def test_report_shows_verdict_dimensions_findings_and_checks(tmp_path, doc):
    html = write_session(tmp_path, doc)[-1].read_text()
    assert 'class="badge big s-fail"' in html
    for dim, status in [("swarm", "pass"), ("checks", "fail"), ("cluster", "partial"), ("requirements", "n/a")]:
        assert f"{dim}: {status}" in html
    # findings coloured by severity, highest first, each with its fix hint
    sev = [m.group(1) for m in re.finditer(r'class="finding sev-(\w+)"', html)]
    assert sev == ["high", "medium", "low"]
    assert "the value report must print 25 for the sample items" in html
    assert "value-report" in html and "grep found no 25" in html


def test_per_device_distribution_is_an_svg_chart_of_dispatched_vs_fair_share(tmp_path, doc):
    html = write_session(tmp_path, doc)[-1].read_text()
    chart = html[html.index("Work per device"):]
    assert "<svg" in chart
    devices = dict(re.findall(r'data-device="([^"]+)" data-status="(\w+)"', chart))
    # 6 tasks over 3 devices with caps 2, 1, 1 -> fair = min(even 2, by cap 3 / 1.5 / 1.5)
    assert devices == {"gpu-a": "ok", "gpu-b": "ok", "m2-mini": "starved"}
    assert "5 / 2.0" in chart and "1 / 1.5" in chart and "0 / 1.5" in chart


def test_diagnostics_table_per_model(tmp_path, doc):
    html = write_session(tmp_path, doc)[-1].read_text()
    table = html[html.index('class="diagnostics"'):]
    table = table[:table.index("</table>")]
    assert re.search(r"<th class=\"num\">narration</th>\s*<th class=\"num\">todo</th>\s*"
                     r"<th class=\"num\">not_implemented</th>", table)
    assert re.search(r"<td>qwen-27b</td>\s*<td class=\"num\">1</td>\s*<td class=\"num\">2</td>\s*"
                     r"<td class=\"num\">0</td>", table)
    assert re.search(r"<td>glm-9b</td>\s*<td class=\"num\">0</td>\s*<td class=\"num\">0</td>\s*"
                     r"<td class=\"num\">1</td>", table)


def test_a_tweak_turn_gets_a_blue_banner_with_before_and_after(tmp_path, doc_factory):
    with_tweak = write_session(tmp_path / "a", doc_factory(tweak=True))[-1].read_text()
    assert 'class="banner tweak"' in with_tweak and "tweak-chart" in with_tweak
    assert "pool.gpu-b.weight=2" in with_tweak
    without = write_session(tmp_path / "b", doc_factory(tweak=False))[-1].read_text()
    assert 'class="banner tweak"' not in without


def test_secret_values_never_reach_any_written_file(tmp_path, doc_factory):
    secret = "sk-ant-REALLYSECRET123"
    doc = doc_factory(stdout_tail=f"calling API with key {secret} ok", prompt=f"use token {secret}")
    doc.data["env"] = {"WEBSEARCH_BEARER_TOKEN": "tok-998877", "LMSTUDIO_HOST": "http://10.0.0.5:1234"}
    environ = {"ANTHROPIC_API_KEY": secret, "HOME": "/root"}
    paths = write_session(tmp_path, doc, environ=environ)
    for p in paths:
        text = p.read_text()
        assert secret not in text and "tok-998877" not in text
    html = paths[-1].read_text()
    assert "[redacted:ANTHROPIC_API_KEY]" in html
    saved = json.loads(paths[0].read_text())
    assert saved["data"]["env"] == {"WEBSEARCH_BEARER_TOKEN": "[redacted:WEBSEARCH_BEARER_TOKEN]",
                                    "LMSTUDIO_HOST": "http://10.0.0.5:1234"}


def test_a_session_without_turns_or_verdict_still_renders(tmp_path):
    doc = SessionDoc(session_id="s-empty", overall="error")
    html = write_session(tmp_path, doc)[-1].read_text()
    assert "This session has no turns" in html
    doc = SessionDoc(session_id="s-noverdict", turns=[Turn(n=1, prompt="x")])
    html = write_session(tmp_path, doc)[-1].read_text()
    assert "No check results recorded" in html and "s-error" in html


def test_a_session_id_that_is_not_a_plain_folder_name_is_refused(tmp_path):
    with pytest.raises(UsageError, match="session_id '../x'"):
        write_session(tmp_path, SessionDoc(session_id="../x"))
    assert list(tmp_path.iterdir()) == []
