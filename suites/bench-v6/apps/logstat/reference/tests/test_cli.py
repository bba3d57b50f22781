"""The prompt's acceptance example and a few of its rules."""
from logstat.cli import main
from logstat.parser import MALFORMED, parse_line
from logstat.stats import nearest_rank

LOG = ('10.0.0.1 - - [01/Mar/2026:12:00:01 +0000] "GET /a HTTP/1.1" 200 100 10\n'
       '10.0.0.2 - - [01/Mar/2026:12:00:02 +0000] "GET /b HTTP/1.1" 404 - 30\n'
       '10.0.0.1 - - [01/Mar/2026:12:00:03 +0000] "GET /a?q=1 HTTP/1.1" 200 50 20\n'
       'garbage\n')


def write_log(tmp_path):
    path = tmp_path / "access.log"
    path.write_text(LOG, encoding="utf-8")
    return str(path)


def test_summary_of_the_acceptance_log(tmp_path, capsys):
    assert main(["summary", write_log(tmp_path)]) == 0
    assert capsys.readouterr().out == "requests: 3\nmalformed: 1\nbytes: 150\nmean_ms: 20.00\n"


def test_top_counts_a_path_with_and_without_its_query_once(tmp_path, capsys):
    assert main(["top", write_log(tmp_path)]) == 0
    assert capsys.readouterr().out == "2 /a\n1 /b\n"


def test_latency_is_nearest_rank(tmp_path, capsys):
    assert main(["latency", write_log(tmp_path)]) == 0
    assert capsys.readouterr().out == "p50: 20\np90: 30\np95: 30\np99: 30\nmax: 30\n"
    assert nearest_rank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "90") == 9


def test_a_line_that_is_not_a_log_line_is_malformed():
    assert parse_line("garbage") == MALFORMED


def test_summary_json_and_an_empty_time_range(tmp_path, capsys):
    path = write_log(tmp_path)
    assert main(["summary", path, "--json"]) == 0
    assert capsys.readouterr().out.strip() == '{"requests": 3, "malformed": 1, "bytes": 150, "mean_ms": 20.0}'
    assert main(["summary", path, "--to", "2026-03-01T12:00:00"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "requests: 0"


def test_a_bad_n_is_an_error(tmp_path, capsys):
    assert main(["top", write_log(tmp_path), "--n", "0"]) == 1
    assert capsys.readouterr().err.startswith("error:")
