"""The arena's games on an existing Dask distributed cluster: ``nimmt-arena ... --cluster ADDRESS``.

Each game is one Dask task (``Client.map`` of the arena's pure ``play_game``);
results stream back as they finish and the arena combines them in (deal,
seating) order, so the figures for a seed are the same as a local run's,
whatever the number of workers. Install with ``pip install 'nimmt[cluster]'``;
docs/ARENA.md says how to start a cluster and why Dask rather than Ray.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

__all__ = ["ClusterError", "play_on_cluster", "cluster_workers"]

T = TypeVar("T")

#: Seconds to reach the scheduler before saying it is not there.
CONNECT_TIMEOUT = 10.0


class ClusterError(Exception):
    """The cluster cannot be used; ``str()`` says why and what to do."""


def _client(address: str) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--cluster needs Dask distributed: pip install 'nimmt[cluster]' "
                           "(on this machine and on every worker)") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"cannot reach a Dask scheduler at {address}: {exc} — start one "
                           "with: dask scheduler (and dask worker ADDRESS on each "
                           "machine)") from None


def cluster_workers(address: str) -> int:
    """How many worker processes the cluster at ``address`` has now."""
    client = _client(address)
    try:
        return len(client.scheduler_info()["workers"])
    finally:
        client.close()


def play_on_cluster(play: Callable[[Any], T], units: Sequence[Any], address: str) -> Iterator[T]:
    """``play(unit)`` for every unit on the cluster at ``address``, as they finish."""
    from distributed import as_completed

    client = _client(address)
    try:
        if not client.scheduler_info()["workers"]:
            raise ClusterError(f"the Dask scheduler at {address} has no workers: start some "
                               f"with: dask worker {address}")
        futures = client.map(play, list(units), pure=False)
        with client.as_current():
            finished = as_completed(futures)
        for future in finished:
            try:
                yield future.result()
            except Exception as exc:
                raise ClusterError(f"a game failed on the cluster: {type(exc).__name__}: "
                                   f"{exc}") from None
    finally:
        client.close()
