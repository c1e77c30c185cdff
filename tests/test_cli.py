"""The command line as a user runs it: outputs, JSON shapes, exit statuses, one-line errors."""

from __future__ import annotations

import json
import sys

import pytest
from helpers import assert_one_line_error, labkit


def test_objectid_explain_json():
    """``objectid explain --json`` prints hex, timestamp, datetime, random and counter."""
    result = labkit("objectid", "explain", "507f1f77bcf86cd799439011", "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout) == {
        "hex": "507f1f77bcf86cd799439011", "timestamp": 1350508407,
        "datetime": "2012-10-17T21:13:27Z", "random": "bcf86cd799", "counter": 4427793}


def test_objectid_generate_reproduces_the_worked_example():
    """``generate --at --random --counter`` is deterministic: the document's two IDs."""
    result = labkit("objectid", "generate", "--count", "2", "--at", "1700000000",
                    "--random", "3f2a91c8d4", "--counter", "12345")
    assert result.stdout.split() == ["6553f1003f2a91c8d4003039", "6553f1003f2a91c8d400303a"]


def test_objectid_generate_json_is_an_array_of_explanations():
    """``generate --json`` prints an array of objects shaped like ``explain``'s."""
    result = labkit("objectid", "generate", "--count", "3", "--at", "2023-11-14T22:13:20Z",
                    "--json")
    rows = json.loads(result.stdout)
    assert len(rows) == 3
    assert {r["datetime"] for r in rows} == {"2023-11-14T22:13:20Z"}
    assert [r["counter"] - rows[0]["counter"] for r in rows] in ([0, 1, 2], [0, 1, -16777214],
                                                                 [0, -16777215, -16777214])


@pytest.mark.parametrize("args", [
    ["objectid", "explain", "xyz"],
    ["objectid", "explain", "507f1f77bcf86cd79943901"],
    ["objectid", "generate", "--count", "0"],
    ["objectid", "generate", "--count", "101"],
    ["objectid", "generate", "--at", "4294967296"],
    ["objectid", "generate", "--random", "123"],
    ["objectid", "generate", "--counter", "16777216"],
    ["objectid", "generate", "--counter", "ten"],
    ["uuid", "explain", "not-a-uuid"],
    ["run", "--topics", "astrology"],
    ["run", "--claims", "Z9"],
    ["run", "--mongodb", "carrier-pigeon"],
    ["run", "--mongodb-version", "latest", "--claims", "O3"],
    ["frobnicate"],
])
def test_bad_input_is_one_line_and_status_2(args):
    """Malformed or out-of-range input: one ``Error:`` line, exit status 2."""
    assert_one_line_error(labkit(*args))


def test_uuid_explain_v7():
    """``uuid explain --json`` prints the v7 fields."""
    result = labkit("uuid", "explain", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "--json")
    info = json.loads(result.stdout)
    assert (info["version"], info["unix_ts_ms"], info["datetime"]) == (
        7, 1645557742000, "2022-02-22T19:22:22Z")


def test_run_writes_the_report_and_prints_the_table(tmp_path):
    """``labkit run`` prints the verdict table and writes the three report files."""
    result = labkit("run", "--claims", "O2,O3", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "O2    holds" in result.stdout
    assert "O3    holds" in result.stdout
    assert "[1/2] O2" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", "report.md",
                                                          "results.json"]


def test_run_json_prints_results(tmp_path):
    """``labkit run --json`` prints the results document to stdout."""
    result = labkit("run", "--claims", "D2", "--json", "--quiet", "--out", str(tmp_path))
    data = json.loads(result.stdout)
    assert [(c["id"], c["verdict"]) for c in data["claims"]] == [("D2", "holds")]
    assert result.stderr == ""


def test_doctor_prints_one_line_per_requirement():
    """``doctor`` prints [OK]/[FAIL] lines, naming each way to MongoDB, and a closing line."""
    result = labkit("doctor")
    lines = result.stdout.strip().splitlines()
    assert all(line.startswith(("[OK]", "[FAIL]", "[--]")) for line in lines[:-1])
    for way in ("LABKIT_MONGODB_URI", "local mongod", "Docker"):
        assert any(way in line for line in lines)
    assert result.returncode == (0 if json.loads(labkit("doctor", "--json").stdout)["ok"] else 1)


def test_doctor_names_the_models_libraries_as_optional():
    """``doctor`` lists the libraries the model degrades without (PCRE2, ICU, the fast
    reader's two), each optional: without one the model refuses what it cannot judge, or reads
    in Python (docs/model.md)."""
    checks = {check["name"]: check for check in json.loads(labkit("doctor", "--json").stdout)[
        "checks"]}
    for name in ("pcre2", "pyicu-wheels", "python-bsonjs", "pysimdjson"):
        assert checks[f"package {name}"]["required"] is False


def test_no_mongodb_server_error_names_all_three_ways(tmp_path):
    """``labkit server`` with no way to MongoDB says what it tried and how to get a server."""
    result = labkit("server", "--mongodb", "local",
                    env={"LABKIT_MONGOD": str(tmp_path / "none"), "LABKIT_MONGODB_URI": ""})
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "Error: No MongoDB server is available" in result.stderr
    assert "Hint:" in result.stderr
    for way in ("LABKIT_MONGODB_URI", "mongod", "Docker"):
        assert way in result.stderr


def test_server_optional_runs_the_command_without_a_server(tmp_path):
    """``server --optional -- CMD`` (what ``make lab`` runs) warns and runs CMD with no URI.

    A URI from the surroundings (a CI job sets one) is not passed on: no server means none.
    """
    probe = "import os; print('uri=' + os.environ.get('LABKIT_MONGODB_URI', '-'))"
    result = labkit("server", "--mongodb", "local", "--optional", "--", sys.executable, "-c",
                    probe, env={"LABKIT_MONGOD": str(tmp_path / "none"),
                                "LABKIT_MONGODB_URI": "mongodb://other.example:27017/"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "uri=-"
    assert "Continuing without a MongoDB server" in result.stderr


def test_predict_sort_prints_the_models_order():
    """``predict sort`` on the mixed fixture prints the chapter's recorded order."""
    result = labkit("predict", "sort", "data/mixed.json", "--sort", "v:1,_id:1")
    assert result.returncode == 0, result.stderr
    assert " ".join(result.stdout.split()) == (
        "emptyArr missing null dec2 array dbl9.5 int10 long100 str10 str9 object binData oid "
        "bool date")


def test_predict_find_json_and_one_document_per_line(tmp_path):
    """``predict find --json`` prints _ids as JSON; files may hold one document per line."""
    lines = tmp_path / "orders.jsonl"
    lines.write_text('{"_id": 1, "userId": 42}\n{"_id": 2, "userId": "42"}\n'
                     '{"_id": 3, "userId": {"$numberLong": "42"}}\n')
    result = labkit("predict", "find", str(lines), "--filter", '{"userId": {"$gt": 0}}', "--json")
    assert json.loads(result.stdout) == [1, 3]


def test_predict_loads_the_model_and_nothing_else():
    """Issue 20: ``labkit predict`` answers within a second, interpreter start included, so it
    loads the model alone: no server, runner, lesson or report code, no URI parser (until an
    error needs one), no pandas, no driver client; and for small files and no $regex or
    collation, neither PCRE2 nor ICU (a large file's check loads PCRE2, tests/test_fastread.py)."""
    import subprocess

    code = ("import contextlib, io, sys; from labkit import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert cli.main(['predict', 'find', 'data/orders.json', '--filter', "
            "'{\"a\": 1}']) == 0\n"
            "    assert cli.main(['predict', 'sort', 'data/mixed.json', '--sort', 'v:1']) == 0\n"
            "print(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    heavy = ("labkit.servers", "labkit.run", "labkit.lessons", "labkit.outputs",
             "labkit.experiments", "labkit.engines", "labkit.claims", "labkit._redact",
             "labkit._conninfo", "pandas", "pymongo", "pcre2", "icu", "babel")
    assert [name for name in out if name.startswith(heavy)] == []
    assert "labkit.model.match" in out  # the check sees the modules it means to


@pytest.mark.parametrize("args", [
    ["predict", "find", "data/orders.json", "--filter", "{not json"],
    ["predict", "find", "data/orders.json", "--filter", "[1, 2]"],
    ["predict", "find", "data/orders.json", "--filter", '{"a": {"$where": "1"}}'],
    ["predict", "find", "no/such/file.json", "--filter", "{}"],
    ["predict", "sort", "data/orders.json", "--sort", "userId:up"],
    ["predict", "sort", "README.md", "--sort", "v:1"],
])
def test_predict_bad_input_is_one_line(args):
    """Unreadable files, malformed JSON, unknown operators and bad sorts: one line, status 2."""
    assert_one_line_error(labkit(*args))


def test_objectid_explain_text_shows_the_counter_and_timestamp_in_hex_too():
    """The text form gives each number beside the hex digits the ID spells it with."""
    result = labkit("objectid", "explain", "6553f1003f2a91c8d4003039")
    assert result.returncode == 0
    assert "12345 (0x003039)" in result.stdout
    assert "1700000000 (0x6553f100)" in result.stdout


def test_btree_plot_into_a_missing_folder_is_one_error_before_measuring(tmp_path):
    """``--plot`` into a folder that does not exist fails at once, in one ``Error:`` line."""
    result = labkit("btree", "--engine", "model", "--n", "100000",
                    "--plot", str(tmp_path / "missing" / "x.png"))
    assert_one_line_error(result)
    assert "does not exist" in result.stderr
    assert result.stdout == ""


def test_btree_plot_with_an_svg_name_writes_svg(tmp_path):
    """``--plot x.svg`` writes an SVG document, ``--plot x.png`` a PNG."""
    for name, start in (("x.svg", b"<?xml"), ("x.png", b"\x89PNG")):
        result = labkit("btree", "--engine", "model", "--n", "500", "--keys", "uuid4",
                        "--quiet", "--plot", str(tmp_path / name))
        assert result.returncode == 0, result.stderr
        assert (tmp_path / name).read_bytes().startswith(start)


def test_clean_help_names_both_servers_it_cleans():
    """``labkit clean`` removes stale databases on LABKIT_POSTGRES_DSN's and LABKIT_MONGODB_URI's
    servers (``servers.clean_user_servers``), and both its help and ``labkit --help`` say so
    (they named PostgreSQL only)."""
    own = labkit("clean", "--help")
    assert own.returncode == 0
    assert "LABKIT_POSTGRES_DSN (PostgreSQL)" in own.stdout
    assert "LABKIT_MONGODB_URI (MongoDB)" in own.stdout
    listed = " ".join(labkit("--help").stdout.split())
    assert "clean remove databases killed runs left on the servers of LABKIT_POSTGRES_DSN and " \
           "LABKIT_MONGODB_URI" in listed
