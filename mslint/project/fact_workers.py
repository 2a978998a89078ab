"""The program facts of a large project, read by worker processes.

A cold run on a large tree reads every project file for its program facts (imports, a
`__main__` block, the modes it sets: mslint.project.program_facts) before any analysis can
start, because the analyses and the result cache's keys depend on the program model.  In one
process that was about a tenth of a cold run on an 8,000-file tree, with the other cores idle.
Here the files whose facts are not stored yet are shared among worker processes, which read
them exactly as `Project.facts` and `Project.imports_of` would; the parent installs what they
found and builds the model from it as before.  Small projects, and warm runs (whose facts are
stored), read nothing here.
"""
from __future__ import annotations

import logging
from typing import Iterable, List, Tuple

from mslint.project import index

log = logging.getLogger("mslint.project.fact_workers")

PARALLEL_FROM = 400  # unread files: below this, starting worker processes costs more than it saves
BATCHES_PER_WORKER = 4  # (so that a worker given the slow files does not hold the others up)


def read_in_workers(paths: Iterable[str], jobs: int) -> None:
    """Read the unread program facts of the projects of `paths` with `jobs` processes."""
    if jobs <= 1:
        return
    for root, project in sorted(index.projects_of(paths).items()):
        unread = project.unread_facts()
        if len(unread) < PARALLEL_FROM:
            continue
        size = -(-len(unread) // (jobs * BATCHES_PER_WORKER))
        batches = [(root, unread[start:start + size]) for start in range(0, len(unread), size)]
        try:
            for found in _map(batches, jobs):
                project.install_facts(found)
        except Exception as error:  # noqa: BLE001 - no worker processes here (a sandbox, a killed worker):
            log.warning("mslint: reading the program facts in worker processes failed (%s: %s); "
                        "reading them here", type(error).__name__, error)
            return  # what was not installed is read where it is needed, as in a serial run


def _map(batches: List[Tuple[str, List[str]]], jobs: int):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=min(jobs, len(batches)), mp_context=multiprocessing.get_context()) as pool:
        yield from pool.map(_read_batch, batches)


def _read_batch(batch: Tuple[str, List[str]]) -> list:
    """In a worker: (path, signature, facts, imported files) of each file of the batch."""
    root, paths = batch
    project = index.project_at(root)
    return [(path,) + project.read_facts_and_imports(path) for path in paths]
