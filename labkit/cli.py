"""The ``labkit`` command line: an expected error is an ``Error:`` message, never a traceback.

Internal to labkit: the commands and their options (docs/cli.md) are the interface, not
this module's names.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import itertools
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from labkit import _defaults, _signals
from labkit._version import __version__
from labkit.errors import BadInput, LabkitError, ServerUnavailable, said
from labkit.i18n import N_, Message, _, english, in_english, number
from labkit.i18n import shown as shown_text
from labkit.model import bson_order, reads, versions
from labkit.syllabus import TOPICS

if TYPE_CHECKING:
    from labkit.claims.claim import Claim
    from labkit.claims.spec import ClaimSpec
    from labkit.run.made import Made
    from labkit.servers.base import Server, Stale

# Every command takes the parsed arguments (argparse.Namespace: its attributes are Any, each
# one what its option's type gives) and returns the exit status.
Command = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2; with ``bounds=True`` its help
    ends with the bounds within which labkit reads files (``fixtures.limits_text``), written
    when the help is, since they write their numbers through Babel, which no parse needs."""

    def __init__(self, *args: Any, bounds: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bounds = bounds

    def format_help(self) -> str:
        if self.bounds:
            from labkit.model.fixtures import limits_text  # the file reader: its help alone

            self.epilog = limits_text()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        self.exit(2, _text(_("Error: {message} (see `{prog} --help`)").format(
            message=message, prog=self.prog)) + "\n")


# What --json says in every command that has it and nothing more to say of it.
_JSON_HELP = N_("print the result as JSON (English) on stdout")

# argparse's own words that labkit's parsers can say, in the catalogue. argparse looks each one
# up at use through ``_``, the name its module gives gettext's ``gettext`` (which reads no
# labkit catalogue); ``_argparse_speaks_labkit`` gives that name labkit's ``_`` for a while.
_ARGPARSE_WORDS = (
    N_("usage: "), N_("positional arguments"), N_("options"),
    N_("show this help message and exit"), N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"), N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"), N_("expected one argument"),
    N_("expected at least one argument"), N_("not allowed with argument %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"))


@contextlib.contextmanager
def _argparse_speaks_labkit() -> Iterator[None]:
    """While the parser is built and parses (its headings are set when it is built, its errors
    and help written when it parses), argparse's ``_`` is labkit's: its words come from the
    catalogue in the language in use. Put back after, so no other parser in the process is
    touched."""
    names = vars(argparse)  # argparse's ``_`` is not in its typed interface
    saved = names["_"]
    names["_"] = _
    try:
        yield
    finally:
        names["_"] = saved


def _line(value: object) -> str:
    """``value`` on one line for the terminal: a line break, a control, a bidirectional
    override or a lone surrogate in it shown as an escape (``escape.visible``), so nothing from
    outside (a database's name, a server's version, an ``_id``, a path) acts on the terminal."""
    text = str(value)
    if text.isprintable():
        return text  # the usual case, without loading the escaping (labkit predict is quick)
    from labkit.outputs.escape import visible  # with the URI parsers (_redact), unlike predict

    return visible(text)


def _text(text: object) -> str:
    """Text of several lines for the terminal: its line breaks kept, any other invisible
    character escaped (``escape.terminal_text``)."""
    shown = str(text)
    if shown.replace("\n", "").isprintable():
        return shown
    from labkit.outputs.escape import terminal_text  # as in _line: rare, and not light

    return terminal_text(shown)


def _say(text: object, file: TextIO | None = None) -> None:
    """Print labkit's text for the terminal through ``_text``: the way this module prints,
    but for the verdict table and the check matrix, which escape each value themselves and
    add their own colours."""
    print(_text(text), file=file or sys.stdout)


def _emit_json(value: object) -> None:
    """``--json``: the escaped JSON results.json holds (``escape.json_text``), all ASCII where
    stdout cannot take UTF-8."""
    from labkit.outputs.escape import json_text  # --json only; with the URI parsers (_redact)

    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    print(json_text(value, ascii_only=encoding != "utf8"))


def _show_fields(info: Mapping[str, object], as_json: bool) -> int:
    if as_json:
        _emit_json(info)
    else:
        width = max(map(len, info)) + 1
        for key, value in info.items():
            _say(f"{key:<{width}} {_line(value)}")
    return 0


def _list(text: str | None) -> list[str] | None:
    """A comma-separated option as a list; None when the option was not given at all."""
    return None if text is None else text.split(",")


class _Progress:
    """``[3/7] O3 …`` on stderr: redrawn in place on a terminal, one line each elsewhere."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.current = ""

    def __call__(self, done: int, total: int, claim: Claim | None) -> None:
        if not self.enabled:
            return
        if claim is None:
            if self.tty:
                sys.stderr.write("\r\033[K")
            sys.stderr.write(_("Ran {total} claims.").format(total=total) + "\n")
        else:
            self.current = f"[{done + 1}/{total}] {_line(claim.id)}"
            text = f"{self.current} {_line(claim.shown_title)}"[:100]
            sys.stderr.write(f"\r\033[K{text}" if self.tty else text + "\n")
        sys.stderr.flush()

    def load(self, engine: str, kind: str, n: int) -> None:
        """A B-tree load is starting (the long part of a run): say which."""
        if not self.enabled:
            return
        text = f"{self.current} " + _line(_("loading {n} {kind} keys into {engine}…")
                                                   .format(n=number(n), kind=kind, engine=engine))
        sys.stderr.write(f"\r\033[K{text}" if self.tty else text + "\n")
        sys.stderr.flush()


def _add_mongodb_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mongodb", choices=_defaults.MONGO_MODES, default="auto",
                        help=_("how to get a MongoDB server (default: auto, in the order "
                               "URI, local mongod, Docker)"))
    parser.add_argument("--mongodb-version", metavar="V",
                        help=_("pin the server version, e.g. 7.0 (the Docker tag mongo:V)"))


def cmd_run(args: argparse.Namespace) -> int:
    """Run every implemented claim live, print the verdicts, write the report."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit import servers
    from labkit.engines.btree_engine import check_n
    from labkit.experiments import catalogue as claims
    from labkit.outputs import report
    from labkit.run import made as made_on_disk
    from labkit.run import runner

    servers.check_pinned_version(args.mongodb_version)
    selected = claims.select(_list(args.claims), _list(args.topics))
    if not selected:
        raise BadInput(Message(N_("no claim matches --claims/--topics")))
    btree_n = args.btree_n if args.btree_n is not None else runner.btree_n_from_env()
    check_n(btree_n, "--btree-n")
    out = Path(args.out) if args.out else Path("reports") / dt.datetime.now().strftime(
        "%Y%m%d-%H%M%S")
    with made_on_disk.undone_if_stopped(out) as made:
        _writable_folder(out, "--out", made)
        report.check_targets(out)
        progress = _Progress(not args.quiet)
        with runner.Context(args.mongodb, args.mongodb_version, btree_n=btree_n,
                            on_load=progress.load) as ctx:
            run = runner.run(selected, ctx, progress)
            for server in ctx.servers():
                _say_cleaned(getattr(server, "cleaned", None), server)
        paths = report.write(run, out, made)
        made.commit()
    if args.json:
        _emit_json(run.to_dict())
    else:
        print(report.terminal_table(run, colour=sys.stdout.isatty()))
        _say("\n" + _("Report: {html}  (also {markdown}, {json})").format(
            html=_line(paths["html"]), markdown=paths["markdown"].name,
            json=paths["json"].name))
    return run.exit_status(args.strict)


def cmd_check(args: argparse.Namespace) -> int:
    """Judge claim files on every engine and MongoDB version: a matrix, the report, JUnit XML."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit.claims import files as claimfiles
    from labkit.outputs import junit, matrix, report
    from labkit.run import check as claimcheck
    from labkit.run import made as made_on_disk

    engines = claimcheck.parse_engines(args.engines)
    versions = claimcheck.parse_versions(args.mongodb_version)
    if versions and "mongodb" not in engines:
        raise BadInput(Message(N_("{option} needs {engine} among --engines"),
                               option="--mongodb-version", engine="mongodb"))
    model_versions = claimcheck.parse_model_versions(args.model_version)
    if model_versions and "model" not in engines:
        raise BadInput(Message(N_("{option} needs {engine} among --engines"),
                               option="--model-version", engine="model"))
    specs = claimfiles.load(args.paths)
    if args.junit:
        _output_file(args.junit, "--junit", "junit.xml")
    out = Path(args.out) if args.out else Path("reports") / dt.datetime.now().strftime(
        "check-%Y%m%d-%H%M%S")

    def progress(column: str, done: int, total: int, spec: ClaimSpec | None) -> None:
        if not args.quiet and spec is not None and done == 0:
            said = (N_("Checking {total} claim on {column}…") if total == 1
                    else N_("Checking {total} claims on {column}…"))
            _say(shown_text(Message(said, total=total, column=_line(column))), sys.stderr)

    # what the check reads: its claim files and the fixture files they name
    read = [*{spec.path for spec in specs}, *(f for spec in specs for f in spec.fixture_files)]
    made_on_disk.check_not_an_input([out / name for name in report.REPORT_FILES.values()],
                                    read, "--out")
    if args.junit:
        made_on_disk.check_not_an_input([Path(args.junit)], read, "--junit")
    with made_on_disk.undone_if_stopped(out) as made:
        _writable_folder(out, "--out", made)
        report.check_targets(out)
        result = claimcheck.check(specs, engines, versions, args.mongodb, progress,
                                  model_versions)
        paths = report.write(result.run, out, made)
        if args.junit:  # put in place with the report: both are new, or neither
            junit.write_junit(result, args.junit, made)
        made.commit()
    if args.json:
        _emit_json(result.run.to_dict())
    else:
        print(matrix.matrix_table(result))
        _say("\n" + _("Report: {html}  (also {markdown}, {json})").format(
            html=_line(paths["html"]), markdown=paths["markdown"].name,
            json=paths["json"].name)
            + ("; " + _("JUnit XML: {path}").format(path=_line(args.junit))
               if args.junit else ""))
    return result.exit_status(args.strict)


def cmd_compare(args: argparse.Namespace) -> int:
    """Join several runs' results.json into one page: claims by run, differences first."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit.outputs import compare
    from labkit.run import made as made_on_disk
    from labkit.run.comparison import compare as joined
    from labkit.run.results_file import results_path

    comparison = joined(args.results)
    out = Path(args.out) if args.out else Path("reports") / dt.datetime.now().strftime(
        "compare-%Y%m%d-%H%M%S")
    made_on_disk.check_not_an_input([out / name for name in compare.COMPARE_FILES.values()],
                                    [results_path(Path(name)) for name in args.results],
                                    "--out")
    with made_on_disk.undone_if_stopped(out) as made:
        _writable_folder(out, "--out", made)
        compare.check_targets(out)
        paths = compare.write(comparison, out, made)
        made.commit()
    if args.json:
        _emit_json(comparison.to_dict())
    else:
        _say(compare.headline(comparison))
        _say(_("Comparison: {html}  (also {markdown})").format(
            html=_line(paths["html"]), markdown=paths["markdown"].name))
    return 0


def _writable_folder(path: Path, option: str, made: Made) -> None:
    """Make sure ``path`` is, or can become, a folder labkit can write in; else BadInput. The
    folders it makes are recorded in ``made``, so that a stop removes those and only those."""
    try:
        if path.exists() and not path.is_dir():
            raise BadInput(Message(N_("{option} {path} is a file, not a folder"), option=option,
                                   path=str(path)))
        made.folder(path)
    except OSError as exc:
        raise BadInput(Message(N_("{option} {path} cannot be created: {error}"), option=option,
                               path=_short(path), error=str(exc.strerror))) from exc
    if not os.access(path, os.W_OK | os.X_OK):
        raise BadInput(Message(N_("{option} {path} is not writable"), option=option,
                               path=str(path)))


def _short(path: object) -> str:
    text = str(path)
    return text if len(text) <= 80 else f"{text[:60]}…({len(text)} characters)"


def cmd_server(args: argparse.Namespace) -> int:
    """Start (or find) a MongoDB server, print how to use it, keep it until Ctrl-C."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit import servers
    from labkit.servers.command import run_beside

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.room is not None:
        if command:
            raise BadInput(Message(N_("--room takes no command: the room's server serves "
                                      "other machines, not a command run here")))
        return _serve_room(args)
    servers.check_pinned_version(args.mongodb_version)
    servers.check_cache_gb(args.cache_gb)
    print(_("Looking for a MongoDB server…"), file=sys.stderr)
    try:
        server = servers.provide("mongodb", args.mongodb, args.mongodb_version, args.cache_gb)
    except ServerUnavailable as exc:
        if not (args.optional and command):
            raise
        # Without a server, the command must not be handed some other one (a CI job's URI).
        env = {k: v for k, v in os.environ.items() if k != "LABKIT_MONGODB_URI"}
        going_on = _("Continuing without a MongoDB server (LABKIT_MONGODB_URI is unset for the "
                     "command).") if "LABKIT_MONGODB_URI" in os.environ else \
            _("Continuing without a MongoDB server.")
        _say(_("Warning: {why}").format(why=exc) + "\n" + going_on, sys.stderr)
        return run_beside(command, env)
    with server:
        info = {"uri": server.uri, "how": server.how, "version": server.version,
                "cache_gb": server.cache_gb, "cache": english(server.cache)}
        if args.json:
            _emit_json(info)
        else:
            _say(_("MongoDB {version} ({how}) at {uri}").format(
                version=_line(server.version), how=_line(server.how),
                uri=_line(servers.redact(server.uri))))
            _say(_line(shown_text(server.cache)))
            _say(_line(_export_line(server.uri, args.show_password)))
        sys.stdout.flush()
        if command:
            return run_beside(command, dict(os.environ, LABKIT_MONGODB_URI=server.uri))
        if server.how == "uri":
            return 0
        print(_("Press Ctrl-C to stop it."), file=sys.stderr)
        while True:  # a sleep, unlike some waits, is interrupted by Ctrl-C on every platform
            time.sleep(1)


def _serve_room(args: argparse.Namespace) -> int:
    """``labkit server --room ADDRESS``: one mongod for a room, with access control and one
    least-privilege user (labkit.servers.room), and the line students paste, until Ctrl-C."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit import servers
    from labkit.servers import room

    address = room.check_address(args.room)
    port = room.check_port(room.ROOM_PORT if args.port is None else args.port)
    cache_gb = servers.check_cache_gb(args.cache_gb)
    _say(_("Starting the room's MongoDB server on {address}, port {port}…").format(
        address=_line(address), port=port), sys.stderr)
    with room.start(address, port, cache_gb) as started:
        line = room.export_line(started.uri) if args.show_password else None
        kept = None if line else room.write_line(started.uri)
        if args.json:
            _emit_json({"uri": started.shown_uri, "version": started.version,
                        "address": address, "port": port,
                        "line_file": str(kept) if kept else None})
        else:
            _say(_("MongoDB {version} for the room at {uri}, with access control: user {user}, "
                   "role {role}").format(version=_line(started.version),
                                         uri=_line(started.shown_uri), user=room.USER,
                                         role=room.ROLE))
            _say(_line(line) if line else _(
                "The line students paste holds the password, so it is not printed: it is in "
                "{path}, which only you may read (`--show-password` prints it).").format(
                path=_line(kept)))
        sys.stdout.flush()
        print(_("Press Ctrl-C to stop the room's server (its data goes with it)."),
              file=sys.stderr)
        while True:  # a sleep, unlike some waits, is interrupted by Ctrl-C on every platform
            time.sleep(1)


def _export_line(uri: str, show_password: bool) -> str:
    """The shell line that sets LABKIT_MONGODB_URI to ``uri`` (quoted for any POSIX shell);
    where the URI holds a password or another secret, a line saying how to have it instead,
    unless ``show_password``: what ``labkit server`` prints is often on a projector or in a
    shared terminal's log, and a command after ``--`` gets the URI in its environment."""
    import shlex

    from labkit._conninfo import display  # the URI parser: `labkit server` alone prints this

    if show_password or display(uri) == uri:  # the display form is the URI: it holds no secret
        return f"export LABKIT_MONGODB_URI={shlex.quote(uri)}"
    return _("The export line is not printed: the URI holds (or may hold) a password. "
             "`labkit server --show-password` prints it; a command after -- gets the URI in "
             "its environment.")


def _say_cleaned(found: Stale | None, server: Server[object]) -> None:
    """Lines on stderr for the stale databases a clean-up removed or was not allowed to drop,
    and for this run's databases it could not remove wholly (never a verdict)."""
    esc = _line
    if found is not None and found.removed:
        _say(shown_text(Message(N_("Removed {n} stale labkit database(s) left by killed runs on "
                                   "{server}: {names}"), n=len(found.removed),
                                server=esc(server.describe()), names=_names(found.removed))),
             sys.stderr)
    skipped = getattr(found, "skipped", None) or {}
    left = getattr(server, "left", None) or {}
    for heading, items in ((N_("Stale labkit database(s) kept (this user may not drop them) "
                               "on {server}:"), skipped),
                           (N_("This run's database(s) not removed wholly on {server}:"), left)):
        if items:
            _say(shown_text(Message(heading, server=esc(server.describe()))), sys.stderr)
            for name, why in items.items():
                _say(f"  {esc(name)}: {esc(shown_text(why))}", sys.stderr)


def _names(names: Iterable[object]) -> str:
    """Database names as one line lists them, each escaped (another role may name its own
    databases anything, ESC sequences among it)."""
    return ", ".join(_line(name) for name in names)


def cmd_clean(args: argparse.Namespace) -> int:
    """Remove what killed labkit runs left on the servers of LABKIT_POSTGRES_DSN and
    LABKIT_MONGODB_URI (servers labkit starts itself leave nothing behind)."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit import servers

    report = servers.clean_user_servers()
    if args.json:  # why each database stays, in English, as files keep labkit's words
        _emit_json(in_english(report))
        return 0
    if not report:
        _say(_("Nothing to clean: neither LABKIT_POSTGRES_DSN nor LABKIT_MONGODB_URI is set, "
               "and the servers labkit starts itself leave nothing behind."))
        return 0
    esc = _line
    for item in report:
        removed = item["removed"]
        where = esc(item["server"])
        _say(shown_text(
            Message(N_("{server}: removed {n} stale labkit database(s): {names}"), server=where,
                    n=len(removed), names=_names(removed)) if removed else
            Message(N_("{server}: removed {n} stale labkit database(s)."), server=where, n=0)))
        if item["in_use"]:
            _say(shown_text(Message(N_("Kept {n} in use by a running labkit: {names}"),
                                    n=len(item["in_use"]), names=_names(item["in_use"]))))
        if item["unproven"]:
            _say(shown_text(Message(N_("Left {n} marked labkit: that labkit cannot prove it made "
                                       "(its secret is {secret}):"), n=len(item["unproven"]),
                                    secret=esc(servers.secret_path()))))
            for name, why in item["unproven"].items():
                _say(f"  {esc(name)}: {esc(shown_text(why))}")
        if item["skipped"]:
            _say(shown_text(Message(N_("Kept {n} stale labkit database(s) this user may not drop "
                                       "(notebooks/hosted.md says which role may):"),
                                    n=len(item["skipped"]))))
            for name, why in item["skipped"].items():
                _say(f"  {esc(name)}: {esc(shown_text(why))}")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check the environment, one line per requirement."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit.run import doctor as environment

    result = environment.run()
    if args.json:
        _emit_json(result.to_dict())
    else:  # each check on its line, whatever a server's version or a path holds
        _say("\n".join(_line(line) for line in result.lines()))
    return 0 if result.ok else 1


def cmd_progress(args: argparse.Namespace) -> int:
    """This learner's exercises: shown whole, exported as CSV, or a room's files merged."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit.lessons import course, progress_csv
    from labkit.run.made import check_not_an_input, write_file

    if args.out and not args.merge:
        raise BadInput(Message(N_("--out goes with --merge")))
    if args.export:
        check_not_an_input([Path(args.export)], [course.progress_file()], "--export")
        written = progress_csv.export(Path(args.export))
        _say(_("Wrote {n} exercise row(s) to {path}.").format(n=written,
                                                            path=_line(args.export)))
    elif args.merge:  # the table to --out (else stdout), then what was merged, and by question
        room = progress_csv.merge(Path(name) for name in args.merge)
        if args.out:  # over an earlier merged table, left out of the merge, it may write
            check_not_an_input([Path(args.out)], room.exports, "--out")
        told = sys.stdout if args.out else sys.stderr
        if args.out:
            write_file(Path(args.out), room.csv().encode("utf-8"), "--out")
            _say(_("Wrote the room's table to {path}.").format(path=_line(args.out)))
        else:
            sys.stdout.write(_text(room.csv()))
        for line in room.said():
            _say(_line(shown_text(line)), told)
        by_question = room.by_question(questions=False)
        if args.out and not by_question.empty:
            _say(by_question.to_string(index=False), told)
    else:  # the questions whole, however long
        _say(course.progress().to_string(index=False, max_colwidth=None))
    return 0


def cmd_objectid_explain(args: argparse.Namespace) -> int:
    """Split an ObjectId into its fields."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit.model import objectid

    info = objectid.explain(args.hex)
    if not args.json:  # the text form shows each number in hex too, as the ID spells it
        info = dict(info, timestamp=f"{info['timestamp']} (0x{info['hex'][:8]})",
                    counter=f"{info['counter']} (0x{info['hex'][18:]})")
    return _show_fields(info, args.json)


def cmd_objectid_generate(args: argparse.Namespace) -> int:
    """Generate a batch of ObjectIds the documented way."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit.model import objectid

    at = objectid.parse_time(args.at) if args.at is not None else None
    random = objectid.parse_random(args.random) if args.random is not None else None
    gen = objectid.Generator(random=random, counter=args.counter)
    batch = gen.batch(args.count, at=at)
    if args.json:
        _emit_json([objectid.explain(h) for h in batch])
    else:
        _say("\n".join(_line(h) for h in batch))
    return 0


def cmd_uuid_explain(args: argparse.Namespace) -> int:
    """Print a UUID's version, variant and, for v7, its fields."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit.model import uuids

    return _show_fields(uuids.explain(args.uuid), args.json)


class _Bar:
    """A progress bar on stderr for long loads: redrawn on a terminal, every 10% elsewhere."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.shown = total, 0, -1
        self.tty = sys.stderr.isatty()

    def __call__(self, kind: str, count: int) -> None:
        self.done += count
        percent = 100 * self.done // self.total
        if self.tty:
            filled = percent * 30 // 100
            sys.stderr.write(f"\r\033[K[{'#' * filled}{'.' * (30 - filled)}] {percent:3d}% "
                             f"{kind} {number(self.done)}/{number(self.total)}")
        elif percent // 10 != self.shown:
            self.shown = percent // 10
            sys.stderr.write(f"{percent:3d}% {kind} {number(self.done)}/{number(self.total)}\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.tty:
            sys.stderr.write("\r\033[K")


def _output_file(path: str, option: str, example: str) -> Path:
    """A file an option will write after the work: checked before any work, so a folder that
    does not exist, a folder given as the file, or a folder labkit cannot write in costs one
    line, not a measurement."""
    target = Path(path)
    if not target.parent.is_dir():
        raise BadInput(Message(N_("{option}: the folder {folder} does not exist"),
                               option=option, folder=repr(str(target.parent))))
    if target.is_dir():
        raise BadInput(Message(N_("{option}: {path} is a folder; give a file name such as "
                                  "{example}"), option=option, path=repr(path),
                               example=example))
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise BadInput(Message(N_("{option}: the folder {folder} is not writable"),
                               option=option, folder=repr(str(target.parent))))
    from labkit.run.made import check_target  # loads the servers: for check and btree only

    check_target(target, option)  # a link, a named pipe: refused before the work
    return target


def _plot_format(path: str) -> str:
    """The format of ``--plot FILE`` from its suffix (svg, else png), checked before any load."""
    target = _output_file(path, "--plot", "btree.svg")
    return "svg" if target.suffix.lower() == ".svg" else "png"


def cmd_btree(args: argparse.Namespace) -> int:
    """Load each key kind into one engine and report index size, leaf fill and insert time."""
    # loaded when this command runs: `labkit --help` and `labkit predict` load none of it
    from labkit import servers
    from labkit.engines import btree
    from labkit.engines.btree_engine import Settings
    from labkit.model import keys
    from labkit.outputs import btree_table
    from labkit.outputs.plots import btree_summary, figure_bytes
    from labkit.run.made import write_file
    from labkit.run.runner import btree_n_from_env

    kinds = keys.parse_kinds(args.keys)
    args.n = btree_n_from_env() if args.n is None else args.n
    settings = Settings(cache_mb=args.cache_mb, checkpoint_every=args.checkpoint_every,
                        capacity=args.capacity, policy=args.policy)
    btree.validate_request(args.engine, args.n, settings)
    plot_format = _plot_format(args.plot) if args.plot else None
    server: servers.Server[object] | None = None
    cache_gb = args.cache_mb / 1024 if args.cache_mb else None  # None: the default cache
    needs = btree.engine(args.engine).server  # shared_buffers on labkit's own PostgreSQL
    if needs == "postgres":
        server = servers.provide("postgres", cache_gb=cache_gb)
    elif needs == "mongodb":
        server = servers.provide("mongodb", args.mongodb, args.mongodb_version, cache_gb)
    bar = _Bar(args.n * len(kinds))
    try:
        measurement = btree.measurement(args.engine, kinds, args.n, settings, server=server,
                                        progress=None if args.quiet else bar)
    finally:
        bar.close()
        if server is not None:
            server.stop()
    if args.plot and plot_format is not None:
        write_file(Path(args.plot), figure_bytes(btree_summary(measurement), plot_format),
                   "--plot")
    if args.json:  # labkit's words in it in English, as files keep them
        _emit_json(in_english({**measurement.to_dict(),
                               "results": [r.summary() for r in measurement.results]}))
    else:
        _say(btree_table.table(measurement)
             + ("\n" + _("Plot: {path}").format(path=_line(args.plot)) if args.plot else ""))
    return 0


def _read_input(args: argparse.Namespace) -> tuple[list[Any], dict[str, Any] | None]:
    """``predict``'s and ``explain``'s FILE and ``--collation``, read and checked."""
    from labkit.model import fixtures  # the file reader: `labkit --help` does not load it

    try:
        docs = fixtures.read(args.file)
    except BadInput:
        if _is_claim_file(args.file):
            raise BadInput(Message(N_(
                "{file} is a claim file, not a file of documents: run it with labkit check "
                "{file}, or give {command} the documents alone (an Extended JSON array, or one "
                "document per line)"), file=str(args.file),
                command=f"labkit {args.command_name}")) from None
        notation = _shell_notation_in(args.file)
        if notation is not None:
            raise BadInput(Message("{file}:{line:d}: {problem}", file=str(args.file),
                                   line=notation[0], problem=notation[1])) from None
        raise
    collation = fixtures.parse_value(args.collation, "--collation") if args.collation else None
    return docs, collation


def _shell_notation_in(path: str) -> tuple[int, Message] | None:
    """The first line of a file of documents holding mongosh's notation (``ObjectId("…")``),
    JSON's refusal of which says only "Expecting value", and the Extended JSON to write."""
    # the claim files' reader of that notation: loaded only for a file JSON refused
    from labkit.claims._shell import call_in_line, mongosh_ejson

    if not os.path.isfile(path):  # a pipe is read once, by the reader that refused it
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(itertools.islice(handle, 100_000), 1):
                call = call_in_line(line[:10_000])
                if call is not None:
                    ejson = mongosh_ejson(call)
                    return number, (
                        Message(N_("{call} is mongosh's notation, not Extended JSON: write "
                                   "{ejson}, the value mongosh makes"), call=call, ejson=ejson)
                        if ejson else
                        Message(N_("{call} is mongosh's notation, not Extended JSON: write "
                                   "the value as Extended JSON (docs/claims.md's table)"),
                                call=call))
    except OSError:
        return None
    return None


def _is_claim_file(path: str) -> bool:
    """Whether ``path`` reads as a claim file: YAML by its name, or a list of claims (its first
    line ``- id: …``)."""
    if str(path).lower().endswith((".yaml", ".yml")):
        return True
    if not os.path.isfile(path):  # a pipe is read once, by the reader that refused it
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = next((line for line in handle if line.strip()), "")
    except OSError:
        return False
    return first.lstrip().startswith("- id:")


def _filter(args: argparse.Namespace) -> dict[str, Any]:
    from labkit.model import fixtures  # the file reader: `labkit --help` does not load it

    try:
        query = fixtures.parse_value(args.filter, "--filter")
    except BadInput as exc:  # not JSON: read as a claim file reads one, keys unquoted
        # the claim files' reader (PyYAML): loaded only for a filter JSON does not read
        from labkit.claims._source import option_value

        query = option_value(args.filter, "--filter", said(exc))
    if not isinstance(query, dict):
        raise BadInput(Message(N_("--filter must be a JSON document, such as {example}"),
                               example="'{\"v\": {\"$gt\": 0}}'"))
    return query


def cmd_predict_sort(args: argparse.Namespace) -> int:
    """Print the ``_id``s in the order the model says ``find().sort(SPEC)`` returns them."""
    docs, collation = _read_input(args)
    order = bson_order.sort(docs, args.sort, collation=collation,
                            mongodb_version=args.mongodb_version)
    return _print_ids(reads.ids(order), args.json)


def cmd_predict_find(args: argparse.Namespace) -> int:
    """Print the ``_id``s the model says ``find(FILTER)`` matches, in file order."""
    docs, collation = _read_input(args)
    found = reads.find(docs, _filter(args), collation=collation,
                       mongodb_version=args.mongodb_version)
    return _print_ids(reads.ids(found), args.json)


def cmd_explain_sort(args: argparse.Namespace) -> int:
    """Print each document in sorted order with the value it sorts by, why, the rule and its
    source (``labkit.model.explain``)."""
    from labkit.model import explain  # the explaining model: `labkit explain` alone needs it

    docs, collation = _read_input(args)
    return _print_explanation(explain.sorted_rows(docs, args.sort, collation=collation,
                                                  mongodb_version=args.mongodb_version),
                              args.json)


def cmd_explain_find(args: argparse.Namespace) -> int:
    """Print each document in file order with whether FILTER matches it, why, the rule and its
    source (``labkit.model.explain``)."""
    from labkit.model import explain  # the explaining model: `labkit explain` alone needs it

    docs, collation = _read_input(args)
    return _print_explanation(explain.find(docs, _filter(args), collation=collation,
                                           mongodb_version=args.mongodb_version), args.json)


def _print_explanation(rows: Any, as_json: bool) -> int:  # FindRow or SortRow list
    """Each row written as it is made, never the whole output at once: an explanation of a
    large file stays within about twice ``predict``'s memory (benchmarks/explain_bench.py)."""
    from labkit.model import fixtures  # the file reader: `labkit --help` does not load it

    if as_json:
        _emit_json_items(fixtures.relaxed(row.to_dict()) for row in rows)
    else:
        from labkit.outputs import explanations  # the text table (escape, _redact) only

        for line in explanations.table_lines(rows):
            _say(line)
    return 0


def _emit_json_items(items: Iterable[object]) -> None:
    """``--json`` of a list, written one item at a time: the same text ``_emit_json`` writes
    for the whole list (``json.dumps(..., indent=2)``'s layout)."""
    from labkit.outputs.escape import json_text  # --json only; with the URI parsers (_redact)

    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    opened = False
    for item in items:
        text = json_text(item, ascii_only=encoding != "utf8").replace("\n", "\n  ")
        sys.stdout.write((",\n  " if opened else "[\n  ") + text)
        opened = True
    sys.stdout.write("\n]\n" if opened else "[]\n")


def _print_ids(ids: list[Any], as_json: bool) -> int:  # _id values: any BSON value
    from labkit.model import fixtures  # the file reader: `labkit --help` does not load it

    if as_json:
        _emit_json(fixtures.relaxed(ids))
    elif not ids:  # said on stderr: stdout stays the list of _ids, empty
        print(_("no document matches"), file=sys.stderr)
    else:  # plain ints and strings print as themselves, other BSON values as Extended JSON;
        # each on one line, escaped (an _id "a\nb" is one id, not two)
        sys.stdout.write("".join(
            _line(value if type(value) in (str, int) else fixtures.dumps(value))
            + "\n" for value in ids))
    return 0


def _int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(  # argparse shows it at once, in its own line
            _("{text} is not an integer").format(text=repr(text))) from exc


def build_parser() -> argparse.ArgumentParser:
    """The full ``labkit`` argument parser, its help in the language in use."""
    parser = _Parser(prog="labkit", description=_("Check MongoDB behaviour claims against real "
                     "servers, and explore the values behind them."), bounds=True)
    parser.add_argument("--version", action="version", version=f"labkit {__version__}",
                        help=_("show program's version number and exit"))
    sub = parser.add_subparsers(dest="command_name", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    run = sub.add_parser("run", help=_("run every claim live and write a report"))
    _add_mongodb_options(run)
    run.add_argument("--topics", help=_("comma-separated topics: {topics}").format(
        topics=", ".join(TOPICS)))
    run.add_argument("--claims", help=_("comma-separated claim IDs, e.g. O2,O3"))
    run.add_argument("--btree-n", type=_int, metavar="N",
                     help=_("keys per kind for the B-tree claims (default LABKIT_BTREE_N, "
                            "else {n})").format(n=_defaults.BTREE_N))
    run.add_argument("--out", metavar="DIR", help=_("report directory (default reports/<time>/)"))
    run.add_argument("--strict", action="store_true",
                     help=_("also fail when a claim did not run (findings never fail)"))
    run.add_argument("--json", action="store_true", help=_("print results.json to stdout"))
    run.add_argument("--quiet", action="store_true", help=_("no progress lines"))
    run.set_defaults(func=cmd_run)

    check = sub.add_parser("check", help=_("judge claim files on engines and MongoDB versions"),
                           description=_("Judge claim files on engines and MongoDB versions. "
                           "How to write a claim file (the short form with $date, "
                           "$numberDecimal, $oid; the Unified Test Format; what each engine "
                           "is): docs/claims.md."), bounds=True)
    check.add_argument("paths", nargs="+", metavar="FILE|DIR",
                       help=_("claim files (.yaml, .yml, .json) or folders of them"))
    check.add_argument("--engines", default="model",
                       help=_("comma-separated: model, mongodb, mongomock, montydb "
                              "(default: model)"))
    check.add_argument("--mongodb", choices=_defaults.MONGO_MODES, default="auto",
                       help=_("how to get each MongoDB server (default: auto)"))
    check.add_argument("--mongodb-version", metavar="V,…",
                       help=_("comma-separated versions, e.g. 6.0,7.0,8.0: one server at a "
                              "time"))
    check.add_argument("--model-version", metavar="V,…",
                       help=_("comma-separated MongoDB versions whose rules the model follows, "
                              "one column each: {versions} (default: {current})").format(
                           versions=", ".join(versions.VERSIONS), current=versions.CURRENT_MAJOR))
    check.add_argument("--out", metavar="DIR",
                       help=_("report directory (default reports/check-<time>/)"))
    check.add_argument("--junit", metavar="FILE", help=_("also write JUnit XML for CI"))
    check.add_argument("--strict", action="store_true",
                       help=_("also fail when a cell did not run"))
    check.add_argument("--json", action="store_true", help=_("print results.json to stdout"))
    check.add_argument("--quiet", action="store_true", help=_("no progress lines"))
    check.set_defaults(func=cmd_check)

    compare = sub.add_parser("compare", help=_("join several runs' results.json into one page"),
                             description=_("Join the results.json of several runs (servers, "
                             "MongoDB versions, the model's rule sets, fakes) into one page: "
                             "claims as rows, each run's engines as columns, the claims whose "
                             "verdicts differ first. Writes compare.html and compare.md."))
    compare.add_argument("results", nargs="+", metavar="RESULTS.json",
                         help=_("results.json files (or the report folders holding them), two "
                                "or more, of labkit run or labkit check"))
    compare.add_argument("--out", metavar="DIR",
                         help=_("folder of the page (default reports/compare-<time>/)"))
    compare.add_argument("--json", action="store_true",
                         help=_("print the comparison as JSON to stdout"))
    compare.set_defaults(func=cmd_compare)

    server = sub.add_parser("server", help=_("start a MongoDB server and print its URI"))
    _add_mongodb_options(server)
    server.add_argument("--cache-gb", type=float, metavar="GB",
                        help=_("WiredTiger cache of a mongod labkit starts: 0.25 (the default, "
                               "the smallest mongod accepts) to 10000"))
    server.add_argument("--json", action="store_true",
                        help=_("print the URI (its password hidden) as JSON"))
    server.add_argument("--show-password", action="store_true",
                        help=_("print the export line even when the URI holds a password "
                               "(without it, that line is left out: labkit server's output is "
                               "often on a projector)"))
    server.add_argument("--optional", action="store_true",
                        help=_("with a command: run it even if no server can be had"))
    server.add_argument("--room", metavar="ADDRESS",
                        help=_("start a mongod for a room on this machine, bound to ADDRESS "
                               "(its address in the room's network) and 127.0.0.1, with access "
                               "control and one user whose password labkit generates; prints "
                               "the line students paste (docs/classroom.md)"))
    server.add_argument("--port", type=_int, metavar="N",
                        help=_("with --room: the port (default 27017)"))
    server.add_argument("command", nargs=argparse.REMAINDER,
                        help=_("after --: a command to run with LABKIT_MONGODB_URI set"))
    server.set_defaults(func=cmd_server)

    clean = sub.add_parser("clean", help=_("remove databases killed runs left on the servers "
                           "of LABKIT_POSTGRES_DSN and LABKIT_MONGODB_URI"), description=_(
                           "Remove the databases killed labkit runs left on the servers of "
                           "LABKIT_POSTGRES_DSN (PostgreSQL) and LABKIT_MONGODB_URI (MongoDB); "
                           "the servers labkit starts itself leave nothing behind."))
    clean.add_argument("--json", action="store_true", help=_(_JSON_HELP))
    clean.set_defaults(func=cmd_clean)

    progress = sub.add_parser("progress", help=_("the exercises done: shown, exported as CSV, "
                              "or a room's exports merged"))
    what = progress.add_mutually_exclusive_group()
    what.add_argument("--export", metavar="FILE",
                      help=_("write this learner's exercises as CSV (ID, lesson, question, "
                             "state, tries, right, revealed, when, first try, wrong answers; "
                             "questions in LABKIT_LANG's language)"))
    what.add_argument("--merge", nargs="+", metavar="FILE",
                      help=_("merge exported files into one table, each file's name as its "
                             "learner"))
    progress.add_argument("--out", metavar="FILE",
                          help=_("with --merge: write the table there (default: stdout)"))
    progress.set_defaults(func=cmd_progress)

    doctor = sub.add_parser("doctor", help=_("check Python, packages and the ways to servers"))
    doctor.add_argument("--json", action="store_true", help=_(_JSON_HELP))
    doctor.set_defaults(func=cmd_doctor)

    oid = sub.add_parser("objectid", help=_("ObjectId anatomy")).add_subparsers(
        dest="objectid_command", metavar="ACTION", parser_class=_Parser)
    oid.required = True
    explain = oid.add_parser("explain", help=_("split an ObjectId into its fields"))
    explain.add_argument("hex", metavar="HEX")
    explain.add_argument("--json", action="store_true", help=_(_JSON_HELP))
    explain.set_defaults(func=cmd_objectid_explain)
    generate = oid.add_parser("generate", help=_("generate ObjectIds (1..100) in one second"))
    generate.add_argument("--count", type=_int, default=1)
    generate.add_argument("--at", metavar="SECONDS|ISO")
    generate.add_argument("--random", metavar="HEX10")
    generate.add_argument("--counter", type=_int)
    generate.add_argument("--json", action="store_true", help=_(_JSON_HELP))
    generate.set_defaults(func=cmd_objectid_generate)

    tree = sub.add_parser("btree",
                          help=_("measure B-tree page splits per key kind on one engine"))
    tree.add_argument("--engine", required=True,
                      help=_("model, sqlite, postgres, wiredtiger or mongodb"))
    tree.add_argument("--keys", default="uuid4,uuid7,objectid,int",
                      help=_("comma-separated: uuid4, uuid7, objectid, int (and uuid7-naive)"))
    tree.add_argument("--n", type=_int, help=_("keys per kind (default LABKIT_BTREE_N, else "
                      "{n})").format(n=_defaults.BTREE_N))
    defaults = _defaults
    tree.add_argument("--cache-mb", type=_int, metavar="M", help=_(
        "cache: WiredTiger (default {wiredtiger}), mongod ({mongod}), labkit's own PostgreSQL's "
        "shared_buffers ({postgres}; yours keeps its own), SQLite's").format(
        wiredtiger=defaults.WT_CACHE_MB, mongod=round(defaults.DEFAULT_CACHE_GB * 1024),
        postgres=defaults.OWN_SHARED_BUFFERS_MB))
    tree.add_argument("--checkpoint-every", metavar="K|none", default=defaults.CHECKPOINT_EVERY,
                      help=_("a checkpoint every K keys (default {k}); none: only at the "
                             "ends").format(k=defaults.CHECKPOINT_EVERY),
                      type=lambda text: None if text == "none" else _int(text))
    tree.add_argument("--capacity", type=_int, default=64, help=_("model: keys per page"))
    tree.add_argument("--policy", choices=("half", "rightmost"), default="half",
                      help=_("model: split policy"))
    _add_mongodb_options(tree)
    tree.add_argument("--plot", metavar="FILE",
                      help=_("write a plot of sizes and fills (PNG, or SVG for a .svg name)"))
    tree.add_argument("--json", action="store_true", help=_(_JSON_HELP))
    tree.add_argument("--quiet", action="store_true", help=_("no progress bar"))
    tree.set_defaults(func=cmd_btree)

    predict = sub.add_parser("predict", help=_("what MongoDB's documented rules say a query "
                             "returns")).add_subparsers(dest="predict_command", metavar="ACTION",
                                                        parser_class=_Parser)
    predict.required = True
    rules_help = _("whose rules to follow (default: the default server's, {version})").format(
        version=versions.CURRENT_MAJOR)
    _read_parser(predict, "sort", _("the _ids in the order find().sort() returns them"),
                 cmd_predict_sort, rules_help)
    _read_parser(predict, "find", _("the _ids find(filter) matches, in file order"),
                 cmd_predict_find, rules_help)
    explain_reads = sub.add_parser("explain", help=_("why MongoDB's documented rules place each "
                                   "document where predict says")).add_subparsers(
        dest="explain_command", metavar="ACTION", parser_class=_Parser)
    explain_reads.required = True
    _read_parser(explain_reads, "sort", _("each document in sorted order: the value it sorts "
                 "by, why, the rule and its source"), cmd_explain_sort, rules_help)
    _read_parser(explain_reads, "find", _("each document in file order: whether find(filter) "
                 "matches it, why, the rule and its source"), cmd_explain_find, rules_help)

    uid = sub.add_parser("uuid", help=_("UUID anatomy")).add_subparsers(
        dest="uuid_command", metavar="ACTION", parser_class=_Parser)
    uid.required = True
    uexplain = uid.add_parser("explain", help=_("version, variant and UUIDv7 fields"))
    uexplain.add_argument("uuid", metavar="UUID")
    uexplain.add_argument("--json", action="store_true", help=_(_JSON_HELP))
    uexplain.set_defaults(func=cmd_uuid_explain)
    return parser


def _read_parser(group: Any, action: str, help_text: str, command: Command,
                 rules_help: str) -> None:
    """``predict``'s and ``explain``'s ``sort`` or ``find``: FILE, --sort or --filter,
    --collation, --mongodb-version, --json."""
    parser = group.add_parser(action, help=help_text, bounds=True)
    parser.add_argument("file", metavar="FILE",
                        help=_("Extended JSON: an array, or one per line"))
    if action == "sort":
        parser.add_argument("--sort", required=True, help=_("for example {example}").format(
            example="'v:1,_id:1'"))
        parser.add_argument("--collation", metavar="JSON", help=_("for example {example}")
                            .format(example="'{\"locale\": \"en\", \"numericOrdering\": true}'"))
    else:
        parser.add_argument("--filter", required=True,
                            help=_("a filter document: Extended JSON, or as a claim file "
                                   "writes one (keys unquoted: '{userId: {$gt: 0}}')"))
        parser.add_argument("--collation", metavar="JSON",
                            help=_("how its comparisons order strings (not $regex), for example "
                                   "{collation}").format(
                                collation="'{\"locale\": \"en\", \"strength\": 2}'"))
    parser.add_argument("--mongodb-version", choices=versions.VERSIONS, help=rules_help)
    parser.add_argument("--json", action="store_true", help=_(_JSON_HELP))
    parser.set_defaults(func=command)


def _unfailing_output() -> None:
    """A character the terminal's encoding lacks (Vietnamese under an ASCII locale) is
    written as a backslash escape instead of ending the command in a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "") == "strict":
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``labkit`` console script."""
    _unfailing_output()
    with _signals.as_interrupts():
        try:
            with _argparse_speaks_labkit():
                args = build_parser().parse_args(argv)
            command: Command = args.func
            return command(args)
        except LabkitError as exc:
            _say(_("Error: {error}").format(error=exc), sys.stderr)
            return exc.exit_status
        except KeyboardInterrupt as exc:
            signum = _signals.stopped(exc)
            print(f"\n{_signals.said(signum)}", file=sys.stderr)
            return 128 + signum
        except BrokenPipeError:
            return 1
        except OSError as exc:  # a path the system refuses (too long, no permission, …)
            where = f": {_line(_short(exc.filename))}" if exc.filename else ""
            _say(_("Error: {error}").format(error=f"{exc.strerror or exc}{where}"), sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
