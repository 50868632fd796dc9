#!/usr/bin/env python3
"""The example store served concurrently: each request handed to a pool of threads as it
is read, answers written as they finish (docs/wire.md, "Framing"), the store and its
facade behind one lock because neither is safe to share between threads.

A store that awaits a backend serves this way, and the battery meets it differently from
a serial child: its race checks' calls overlap inside the child. The pool has more
threads than the battery has clients, so no request waits for a thread to start. Time
the battery over it with:

    storecheck bench --battery --count 3 --adapter exec --exec "python3 examples/python-store/threaded.py"
"""

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import store as store_module


def main():
    store, fac = store_module.open_store()
    held, writing = threading.Lock(), threading.Lock()
    out = sys.stdout
    pool = ThreadPoolExecutor(max_workers=32)

    def serve(line):
        with held:
            a = store_module.answer(line, store, fac)
        if a is not None:
            with writing:
                out.write(a + "\n")
                out.flush()

    for line in sys.stdin.buffer:
        pool.submit(serve, line)


if __name__ == "__main__":
    main()
