"""Lesson 05's names: IDs made by real processes in one second, the source's recorded runs,
clock skew and an inversion, and pictures of IDs against time and rank."""

from labkit.claims.recorded import from_seconds, same_second, server_vs_client
from labkit.engines.processes import in_processes, rows
from labkit.experiments.objectid_ordering import clock_skew
from labkit.model.objectid import fields_view, inversion_example
from labkit.outputs.plots import id_rank, id_time_in_second

__all__ = ["clock_skew", "fields_view", "from_seconds", "id_rank", "id_time_in_second",
           "in_processes", "inversion_example", "rows", "same_second", "server_vs_client"]
