"""What the source documents recorded on real servers, kept as data and labelled as such, so a
lesson can show it beside a live run (or, with no server, instead of one, never as one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from labkit.i18n import N_, _
from labkit.model import objectid

if TYPE_CHECKING:
    import pandas as pd

CHAPTER = "the course chapter \u201cBSON & ObjectId, part 2/3\u201d"
LABEL = (f"recorded by {CHAPTER} on a real server through mongosh (it does not say which "
         "MongoDB version); not an observation of your server")

# Two mongosh processes, five IDs each, in one second (the chapter's anatomy run).
SAME_SECOND = {
    N_("process 1"): ["6ac711ed454f588ca2d05d4b", "6ac711ed454f588ca2d05d4c",
                  "6ac711ed454f588ca2d05d4d", "6ac711ed454f588ca2d05d4e",
                  "6ac711ed454f588ca2d05d4f"],
    N_("process 2"): ["6ac711ed174cbaf76ff1a390", "6ac711ed174cbaf76ff1a391",
                  "6ac711ed174cbaf76ff1a392", "6ac711ed174cbaf76ff1a393",
                  "6ac711ed174cbaf76ff1a394"],
}
GET_TIMESTAMP = {N_("process 1"): ("2026-10-08T03:45:49.000Z", "2026-10-08T03:45:49.477Z"),
                 N_("process 2"): ("2026-10-08T03:45:49.000Z", "2026-10-08T03:45:49.722Z")}
# An upsert without _id (mongod made the ID) against an ID made by mongosh.
SERVER_VS_CLIENT = {N_("server-generated"): "6ac711f61202b55ba5d6ca57",
                    N_("client-generated"): "6ac711f6acb1910cc6ad711b"}
# ObjectId(secs) and ObjectId.createFromTime(secs) for 2026-10-08T00:00:00Z.
FROM_SECONDS = {"ObjectId(secs)": "6ac6dd00dcfdc9da974196bf",
                "ObjectId.createFromTime(secs)": "6ac6dd000000000000000000"}


# The tables' column headings, in English here and shown in the learner's words.
COLUMNS = (N_("process"), N_("timestamp"), N_("random"), N_("counter"), N_("counter (decimal)"),
           N_("clock"), N_("made by"), N_("built with"))


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame([{_(key): value for key, value in row.items()} for row in rows])
    frame.attrs["source"] = LABEL
    return frame


def _split(hex_id: str) -> dict[str, Any]:
    parts = objectid.split(hex_id)
    return {"timestamp": hex_id[:8], "random": hex_id[8:18], "counter": hex_id[18:],
            "counter (decimal)": parts.counter}


def same_second() -> pd.DataFrame:
    """The chapter's two processes in one second: each ID split into its three fields, with
    what ``getTimestamp()`` and the clock said."""
    rows: list[dict[str, Any]] = []
    for process, ids in SAME_SECOND.items():
        stamp, now = GET_TIMESTAMP[process]
        rows += [{"process": _(process), **_split(h), "getTimestamp()": stamp, "clock": now}
                 for h in ids]
    return _frame(rows)


def server_vs_client() -> pd.DataFrame:
    """The chapter's server-made ID beside a client-made one, split into fields."""
    return _frame([{"made by": _(who), **_split(h)} for who, h in SERVER_VS_CLIENT.items()])


def from_seconds() -> pd.DataFrame:
    """The chapter's two IDs for 2026-10-08T00:00:00Z: made at that second, and the bound."""
    return _frame([{"built with": how, "hex": h, **_split(h)} for how, h in FROM_SECONDS.items()])
