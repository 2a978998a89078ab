"""MS301: threads, processes, executors, subprocesses, queues, signals and async code in graph scope."""
from __future__ import annotations

from conftest import only


def found(findings):
    return [(f.code, f.line) for f in findings]


def test_lock_created_in_init_and_entered_in_construct(project):
    findings = project.lint_source('''
        import threading
        from mindspore import nn


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.lock = threading.Lock()

            def construct(self, x):
                with self.lock:
                    y = x + 1
                return y
    ''', select=["MS301"])
    assert found(findings) == [("MS301", 11)]
    assert findings[0].column == 13  # the context expression `self.lock`
    assert "'with self.lock' enters a threading.Lock" in findings[0].message
    assert "TypeError: Only support jit_class instance" in findings[0].message


def test_executor_and_pool_from_init_used_in_a_helper_with_aliases(project):
    findings = project.lint_source('''
        import multiprocessing as mp
        from concurrent import futures
        from mindspore import nn


        def work(v):
            return v


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.pool = futures.ThreadPoolExecutor(max_workers=2)
                self.procs = mp.Pool(2)

            def construct(self, x):
                self.pool.submit(work, x)
                return self.helper(x)

            def helper(self, x):
                self.procs.map(work, [1, 2])
                return x
    ''', select=["MS301"])
    assert found(findings) == [("MS301", 17), ("MS301", 21)]
    assert "concurrent.futures.ThreadPoolExecutor.submit" in findings[0].message
    assert "in graph code, given 'x', a value only known at run time. STRICT fails (ValueError: When handling " \
        "script '__call_func_str__(...) in graph mode', the inputs should be constant" in findings[0].message
    assert "multiprocessing.Pool.map" in findings[1].message
    assert "is a thread/process call in graph code. JIT Fallback runs it while the graph is compiled, and only " \
        "then" in findings[1].message
    assert "called from Net.construct (line 18)" in findings[1].message


def test_threads_subprocesses_os_calls_queues_and_signals_once_per_statement(project):
    findings = project.lint_source('''
        import os
        import queue
        import signal
        import subprocess
        from threading import Thread
        from concurrent.futures import ThreadPoolExecutor as Executor
        import mindspore as ms


        def work(v):
            return v


        @ms.jit
        def step(x):
            t = Thread(target=work, args=(1,))
            t.start()
            t.join()
            Executor(2).submit(work, 3).result()
            subprocess.run(["nvidia-smi"])
            os.system("sync")
            os.spawnl(os.P_WAIT, "/bin/true", "true")
            q = queue.Queue()
            q.put(x)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            return x
    ''', select=["MS1", "MS301"])
    assert found(findings) == [("MS301", line) for line in (16, 19, 20, 21, 22, 23, 25)]
    by_line = {f.line: f for f in findings}
    assert "'Thread' (threading.Thread) is a thread/process call" in by_line[16].message
    assert by_line[19].column == 4  # the smallest call of the chain: Executor(2)
    assert "'subprocess.run' is a process call" in by_line[20].message
    assert "the command runs once" in by_line[21].message


def test_async_code_in_graph_scope(project):
    findings = project.lint_source('''
        import asyncio
        from mindspore import nn


        async def fetch():
            await asyncio.sleep(0)
            return 1


        class AsyncCell(nn.Cell):
            async def construct(self, x):
                return x


        class Net(nn.Cell):
            def construct(self, x):
                async def inner():
                    async with asyncio.Lock():
                        await asyncio.sleep(0)
                asyncio.run(fetch())
                return x
    ''', select=["MS301"])
    assert found(findings) == [("MS301", 5), ("MS301", 11), ("MS301", 17), ("MS301", 20)]
    messages = [f.message for f in findings]
    assert "'async def fetch'" in messages[0] and "Unsupported statement 'AsyncFunctionDef'" in messages[0]
    assert "called from Net.construct (line 20)" in messages[0]
    assert "Parse Lambda Function Fail" in messages[1]
    assert "'async def inner'" in messages[2]
    assert "'asyncio.run'" in messages[3] and "does not compile" in messages[3]


def test_init_dataset_sources_callbacks_and_training_scripts_are_clean(project):
    findings = project.lint_source('''
        import threading
        import subprocess
        from concurrent.futures import ThreadPoolExecutor
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore import nn
        from mindspore.train import Callback


        def decode(v):
            return v


        class Source:
            def __init__(self, items):
                self.items = items
                self.pool = ThreadPoolExecutor(max_workers=4)

            def __getitem__(self, index):
                return self.pool.submit(decode, self.items[index]).result()

            def __len__(self):
                return len(self.items)


        class Saver(Callback):
            def step_end(self, run_context):
                threading.Thread(target=print, args=("saved",)).start()


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.lock = threading.Lock()
                with self.lock:
                    self.scale = 2.0

            def construct(self, x):
                return x * self.scale


        def main():
            data = ds.GeneratorDataset(Source([1, 2, 3]), ["x"], num_parallel_workers=4, python_multiprocessing=True)
            data = data.map(decode, input_columns=["x"], num_parallel_workers=8, python_multiprocessing=True)
            subprocess.run(["nvidia-smi"])
            model = ms.Model(Net())
            model.train(1, data, callbacks=[Saver()])
    ''', select=["MS301"])
    assert findings == []


def test_a_local_lock_or_a_project_class_named_like_one_is_not_a_thread(project):
    findings = project.lint_source('''
        from mindspore import nn


        class Lock:
            def __enter__(self):
                return self

            def __exit__(self, *args):
                return False


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.lock = Lock()

            def construct(self, x):
                q = x.sum()
                return q
    ''', select=["MS301"])
    assert findings == []


def test_os_process_calls_are_left_to_ms301(project):
    findings = project.lint_source('''
        import os
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                os.system("sync")
                flag = os.getcwd()
                return x
    ''', select=["MS1", "MS301"])
    assert [(f.code, f.line) for f in findings] == [("MS301", 7), ("MS103", 8)]
    assert only(findings, "MS103")[0].message.startswith("os call 'os.getcwd'")
