"""The notebook's side of the runner: one context per kernel, and ``labkit.check``."""

from __future__ import annotations

import atexit
import html

from ._claim import ERROR, FAILS, VERDICT_TEXT
from .errors import ClaimFailed
from .runner import COLOURS, ClaimResult, Context, run_claim

_session: Context | None = None


def session() -> Context:
    """The kernel's shared context: one MongoDB (``labkit.mongodb()``), one set of B-tree loads.

    ``session().btree_n`` is the number of keys per kind every B-tree table and verdict
    of the kernel uses (``LABKIT_BTREE_N``, or the kit's default).
    """
    global _session
    if _session is None:
        from . import servers

        _session = Context(mongodb_provider=servers.mongodb)
        atexit.register(_session.close)
    return _session


class Checked(list):
    """The rows of one claim's check, shown as a verdict card in a notebook."""

    def __init__(self, result: ClaimResult) -> None:
        super().__init__(result.rows)
        self.result = result

    @property
    def verdict(self) -> str:
        """The claim's verdict, summed up from its rows."""
        return self.result.verdict

    def _repr_html_(self) -> str:
        item = self.result.claim
        head = (f"<p><b style='color:{COLOURS[self.verdict]}'>{item.id}: "
                f"{VERDICT_TEXT[self.verdict]}</b> ({item.kind} claim) &mdash; "
                f"{html.escape(item.title)}<br><small>experiment: "
                f"<code>{html.escape(item.experiment_name)}</code></small></p>")
        if len(self) == 1:
            return head + self[0]._repr_html_()
        return head + "".join(f"<div style='margin-left:1.5em'>{row._repr_html_()}</div>"
                              for row in self)

    def __str__(self) -> str:
        item = self.result.claim
        head = f"{item.id}: {VERDICT_TEXT[self.verdict]} ({item.kind} claim)"
        return "\n".join([head, *(str(row) for row in self)])

    __repr__ = __str__


def check(claim_id: str, ctx: Context | None = None) -> Checked:
    """Run one claim live (in a notebook: on the kernel's servers) and return its verdicts.

    Raises ``ClaimFailed`` when a behaviour claim does not hold or any engine errs, and
    ``ServerUnavailable`` when the claim needs a server that cannot be had. A survey
    claim that does not hold on some engine is a finding, shown and not raised.
    """
    from .claims import get

    item = get(claim_id)
    ctx = ctx or session()
    for kind in item.needs:
        missing = ctx.unavailable(kind)
        if missing is not None:
            raise missing
    checked = Checked(run_claim(item, ctx))
    bad = [row for row in checked if row.verdict in (FAILS, ERROR)]
    if bad:
        raise ClaimFailed("\n".join(str(row) for row in bad))
    return checked
