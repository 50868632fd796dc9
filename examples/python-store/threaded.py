#!/usr/bin/env python3
"""The example store served concurrently: a thread per request, answers written as they
finish (docs/wire.md, "Framing"), the store and its facade behind one lock because
neither is safe to share between threads.

A store that awaits a backend serves this way, and the battery meets it differently from
a serial child: its race checks' calls overlap inside the child, so they count, and every
round pays a thread's start. Time the battery over it with:

    storecheck bench --battery --count 3 --exec "python3 examples/python-store/threaded.py"
"""

import sys
import threading

import facade as facade_layer
import store as store_module


def main():
    store = store_module.Store()
    fac = facade_layer.Facade(store, store_module.StoreError, store_module.not_found, store_module.arg,
                              store_module.copy, store_module.is_text)
    held, writing = threading.Lock(), threading.Lock()
    out = sys.stdout

    def serve(line):
        with held:
            a = store_module.answer(line, store, fac)
        if a is not None:
            with writing:
                out.write(a + "\n")
                out.flush()

    for line in sys.stdin.buffer:
        threading.Thread(target=serve, args=(line,)).start()


if __name__ == "__main__":
    main()
