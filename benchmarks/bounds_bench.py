"""What the bounds on files cost a ``labkit check`` run: the run with them, and the same run
with the reading they replaced.

    python benchmarks/bounds_bench.py [--repeat 31] [--files claims/] [--json]

Each round runs ``labkit check FILES`` in this process (the model engine, the report written to
a scratch folder) as shipped and with the unbounded reading swapped in: the file read whole
with ``Path.read_bytes`` (no size, no kind of file), PyYAML's ``SafeLoader`` with no count of
depth, aliases, digits or surrogates, and fixture integers converted without a look at their
length. The shipped reading takes its events from libyaml where PyYAML has it, which the former
did not; so the reading is also timed with the bounded loader on events read in Python, the
same parser as the former, which is the cost of the bounds alone. The order of the sides turns
each round; the time is the process's CPU time (other processes on the machine add nothing to
it), and the least of the rounds is taken, the run with the least disturbance. It prints every
side, for the whole run and the reading alone, and the costs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from labkit import cli  # noqa: E402  # the checkout's labkit, from any working directory
from labkit.claims import _source  # noqa: E402
from labkit.claims import files as claimfiles  # noqa: E402
from labkit.model import fixtures  # noqa: E402


def _unbounded_compose(path: Path, text: str) -> tuple[Any, _source.Node]:
    """The reading before the bounds: PyYAML's safe loader, dates left as strings."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers
                if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    loader = Loader(text)
    try:
        node = loader.get_single_node()
        return loader.construct_document(node), _source.Node(node)
    finally:
        loader.dispose()


@contextlib.contextmanager
def python_events() -> Iterator[None]:
    """The bounded loader on events read in Python, as the former reading's parser."""
    from labkit.claims import _bounded_yaml

    saved = _bounded_yaml.Loader
    _bounded_yaml.Loader = _bounded_yaml.PythonLoader
    try:
        yield
    finally:
        _bounded_yaml.Loader = saved


@contextlib.contextmanager
def unbounded() -> Iterator[None]:
    """The reading the bounds replaced, swapped in for the block."""
    saved = (_source._compose_and_construct, fixtures.read_bytes, fixtures.check_integer_text)
    _source._compose_and_construct = _unbounded_compose
    fixtures.read_bytes = lambda path: Path(path).read_bytes()
    fixtures.check_integer_text = lambda text, where: None
    try:
        yield
    finally:
        (_source._compose_and_construct, fixtures.read_bytes,
         fixtures.check_integer_text) = saved


def timed(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def check_run(files: list[str]) -> Callable[[], object]:
    def run() -> object:
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
            status = cli.main(["check", *files, "--quiet", "--out", out])
        assert status in (0, 1), status
        return status

    return run


def reading(files: list[str]) -> Callable[[], object]:
    return lambda: claimfiles.load(files)


SIDES = {"shipped": contextlib.nullcontext, "bounds on Python events": python_events,
         "former (unbounded)": unbounded}


def measure(work: Callable[[], object], repeat: int) -> dict[str, float]:
    """Least CPU seconds of ``work`` on each side, the order of the sides turning each round."""
    times: dict[str, list[float]] = {side: [] for side in SIDES}
    names = list(SIDES)
    for round_ in range(repeat):
        for side in names[round_ % 3:] + names[:round_ % 3]:
            with SIDES[side]():
                times[side].append(timed(work))
    return {side: min(seconds) for side, seconds in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=31)
    parser.add_argument("--files", nargs="+", default=[str(ROOT / "claims"),
                                                       str(ROOT / "tests" / "data" / "claims")])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    check_run(args.files)()  # warm: imports, the kit's caches
    run = measure(check_run(args.files), args.repeat)
    read = measure(reading(args.files), args.repeat)
    former = "former (unbounded)"
    result = {
        "files": args.files, "repeat": args.repeat,
        "check_seconds": run, "reading_seconds": read,
        "check_shipped_vs_former": run["shipped"] / run[former] - 1,
        "check_bounds_alone": (run["bounds on Python events"] - run[former]) / run[former],
        "reading_bounds_alone": read["bounds on Python events"] / read[former] - 1,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"labkit check {' '.join(args.files)}  (CPU time, least of {args.repeat})")
    for what, seconds in (("whole run", run), ("reading", read)):
        print(f"  {what}:  " + "   ".join(f"{side} {value * 1000:.1f} ms"
                                          for side, value in seconds.items()))
    print(f"  the run, shipped against former: {result['check_shipped_vs_former']:+.1%}; "
          f"the bounds alone (same parser): {result['check_bounds_alone']:+.1%} of the run, "
          f"{result['reading_bounds_alone']:+.1%} of the reading")


if __name__ == "__main__":
    main()
