"""How a parallel run hands its files to worker processes (mslint.run.scheduling)."""
import multiprocessing

from mslint.run import scheduling


def test_split_keeps_files_in_order_in_contiguous_runs_of_similar_size():
    items = [f"pkg{i // 10}/m{i % 10}.py" for i in range(40)]
    sizes = [100] * 40
    runs = scheduling.split(items, sizes, 2, chunks_per_run=4)
    assert len(runs) == 2
    flat = [item for run in runs for chunk in run for item in chunk]
    assert flat == items  # every file once, in path order
    first = [item for chunk in runs[0] for item in chunk]
    assert first == items[:20]  # the first worker's run is the first half


def test_split_with_fewer_files_than_chunks_leaves_no_empty_chunk():
    runs = scheduling.split(["a.py", "b.py", "c.py"], [10, 10, 10], 2, chunks_per_run=4)
    chunks = [chunk for run in runs for chunk in run]
    assert all(chunks)
    assert [item for chunk in chunks for item in chunk] == ["a.py", "b.py", "c.py"]


def test_split_balances_by_size_not_count():
    sizes = [1000] + [10] * 100  # one big file, then many small ones
    runs = scheduling.split(list(range(101)), sizes, 2, chunks_per_run=1)
    assert runs[0] == [(0,)]  # the big file is a run of its own
    assert runs[1] == [tuple(range(1, 101))]


def _claimed(claims, owner, count):
    claims.owner = owner
    return [claims.claim() for _ in range(count)]


def test_a_worker_takes_its_own_run_front_to_back_then_the_back_of_the_fullest_other():
    runs = [[("a",), ("b",), ("c",)], [("d",), ("e",), ("f",), ("g",)]]  # chunks 0-2 and 3-6
    claims = scheduling.claims_for(runs, multiprocessing.get_context())
    assert _claimed(claims, 0, 3) == [0, 1, 2]
    assert _claimed(claims, 0, 1) == [6]  # its run is done: the last chunk of worker 1's run
    assert _claimed(claims, 1, 3) == [3, 4, 5]
    assert _claimed(claims, 1, 1) == [None]  # all taken
    assert _claimed(claims, 0, 1) == [None]


def test_every_chunk_is_claimed_once_whoever_asks():
    runs = scheduling.split(list(range(50)), [1] * 50, 3, chunks_per_run=4)
    claims = scheduling.claims_for(runs, multiprocessing.get_context())
    total = sum(len(run) for run in runs)
    taken = []
    for turn in range(total + 5):
        claims.owner = turn % 4  # a fourth worker owns no run: it only takes the others' ends
        found = claims.claim()
        if found is not None:
            taken.append(found)
    assert sorted(taken) == list(range(total))


def test_workers_join_as_owners_of_successive_runs():
    claims = scheduling.claims_for([[("a",)], [("b",)]], multiprocessing.get_context())
    try:
        scheduling.join_worker(claims)
        assert claims.owner == 0
        assert scheduling.next_chunk() == 0
        claims.take_owner()
        assert claims.owner == 1
    finally:
        scheduling._STATE = None  # (a worker's state: not this test process's)
