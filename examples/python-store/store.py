#!/usr/bin/env python3
"""A small, honest task store speaking the storecheck wire protocol (docs/wire.md, version 2).

Its store has no wait between a read and the write that depends on it, so serving one
request at a time is honest here; a store that awaits a backend must be served
concurrently (docs/wire.md, "Framing").

Standard library only. It implements both eras, every optional legacy operation and clock
control, and handles one request at a time (a serial child is valid: docs/wire.md). With
protocol 2 it also serves a facade layer (facade.py: both eras' task lifecycles over this
store), against which storecheck runs the facade rules. Run it under the battery with:

    storecheck run --exec "python3 examples/python-store/store.py"

The protocol is JSON Lines on stdin/stdout; stdout carries protocol lines only, so every
diagnostic goes to stderr.
"""

import json
import sys
import time

import facade as facade_layer

# --- JSON that keeps numbers exact -------------------------------------------------------
# Python's json turns 0.1000000000000000055511151231257827 into a float and 1e-7 into
# 1e-07; the battery compares numbers by exact decimal value, so floats are kept as the
# text they arrived as and written back verbatim. Integers are Python ints: exact.


class Number(str):
    """A JSON number (not an integer) kept as its source text."""


def dumps(v):
    """Serialise v as compact JSON, writing Number values verbatim."""
    if isinstance(v, Number):
        return str(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # ASCII-only output: escapes every non-ASCII character
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dumps(e) for k, e in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dumps(e) for e in v) + "]"
    raise TypeError("no JSON form: %r" % (v,))


def loads(s):
    return json.loads(s, parse_float=Number)


def is_text(v):
    """A JSON string (a Number is a str underneath, but not a string)."""
    return isinstance(v, str) and not isinstance(v, Number)


def copy(v):
    """Deep copy of a decoded JSON value: stored values are never shared with callers."""
    if isinstance(v, dict):
        return {k: copy(e) for k, e in v.items()}
    if isinstance(v, list):
        return [copy(e) for e in v]
    return v


# --- errors ------------------------------------------------------------------------------


class StoreError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def not_found(task_id):
    # One message for missing, expired and foreign tasks (S-OWN-2).
    return StoreError("not_found", "task not found: " + task_id)


def check_id(task_id):
    """S-ID-2: 1..512 bytes of valid UTF-8 without NUL; anything else is opaque."""
    if not is_text(task_id):
        raise StoreError("invalid", "task id must be a string")
    try:
        raw = task_id.encode("utf-8")  # a lone surrogate ("\\ud800") is not UTF-8
    except UnicodeEncodeError:
        raise StoreError("invalid", "task id is not valid UTF-8")
    if not raw:
        raise StoreError("invalid", "empty task id")
    if len(raw) > 512:
        raise StoreError("invalid", "task id longer than 512 bytes")
    if "\x00" in task_id:
        raise StoreError("invalid", "task id contains NUL")
    return task_id


def arg(args, key, kind, nullable=False):
    v = args.get(key)
    if v is None and nullable:
        return None
    ok = isinstance(v, kind) and not (kind is int and isinstance(v, bool)) and not (kind is str and not is_text(v))
    if not ok:
        raise StoreError("invalid", "argument %s has the wrong type" % key)
    return v


# --- the store ---------------------------------------------------------------------------

TERMINAL = ("completed", "failed", "cancelled")


class Store:
    ERAS = ("legacy", "modern")  # the eras this store serves

    def __init__(self):
        self.fixed_now = None  # milliseconds, or None for the real clock
        self.version = 1  # the protocol version hello agreed on
        self.delay_ms = 0  # how long the next store operation sleeps first (delay op)
        self.reset()

    def reset(self):
        self.legacy = {}
        self.modern = {}

    def check_task_id(self, a):
        return check_id(arg(a, "task_id", str))

    def now(self):
        if self.fixed_now is not None:
            return self.fixed_now
        return time.time_ns() // 1_000_000

    # Owners and callers ------------------------------------------------------------------

    @staticmethod
    def legacy_owner(task):
        """'' for an unowned task (owner absent, null or ''); None for a non-string owner,
        which no principal can present: such a task is visible to the any scope only."""
        o = task.get("owner")
        if o is None:
            return ""
        if is_text(o):
            return o
        return None

    @staticmethod
    def can_see(owner, caller, require_owner):
        """The owner truth table (S-OWN-1). owner '' = none; caller is a wire caller."""
        scope = caller.get("scope")
        if scope in ("system", "any"):
            return True
        if owner is None:
            return False
        if owner == "":
            return not require_owner
        return scope == "principal" and caller.get("id") == owner

    @staticmethod
    def check_caller(caller, scopes):
        if not isinstance(caller, dict) or caller.get("scope") not in scopes:
            raise StoreError("invalid", "bad caller or scope")
        if caller["scope"] == "principal" and not (is_text(caller.get("id")) and caller["id"]):
            raise StoreError("invalid", "a principal needs a non-empty id")

    @staticmethod
    def status_of(task):
        s = task.get("status")
        return s if is_text(s) else "working"

    # Legacy era (docs/spec.md 1.1) -------------------------------------------------------------

    def legacy_create(self, a):
        tid = check_id(arg(a, "task_id", str))
        meta = arg(a, "metadata", dict)
        if tid in self.legacy:
            raise StoreError("exists", "task already exists: " + tid)
        task = copy(meta)
        task["task_id"] = tid
        task["status"] = "working"
        task["created_at"] = self.now()
        self.legacy[tid] = task
        return copy(task)

    def legacy_find(self, a):
        tid = check_id(arg(a, "task_id", str))
        if tid not in self.legacy:
            raise not_found(tid)
        return tid

    def legacy_get(self, a):
        return copy(self.legacy[self.legacy_find(a)])

    def legacy_update(self, a):
        tid = self.legacy_find(a)
        changes = arg(a, "changes", dict)
        self.legacy[tid].update(copy(changes))  # shallow merge: top-level keys replace
        return copy(self.legacy[tid])

    def legacy_update_if(self, a):
        tid = self.legacy_find(a)
        allowed = arg(a, "allowed_statuses", list)
        changes = arg(a, "changes", dict)
        current = self.status_of(self.legacy[tid])
        if current not in allowed:
            raise StoreError("conflict", "task %s is %s" % (tid, current))
        self.legacy[tid].update(copy(changes))
        return copy(self.legacy[tid])

    def legacy_delete(self, a):
        tid = check_id(arg(a, "task_id", str))
        self.legacy.pop(tid, None)
        return None

    def legacy_list(self, a):
        status = arg(a, "status", str, nullable=True)
        limit = arg(a, "limit", int, nullable=True)
        scope = a.get("owner") or {"scope": "any"}
        self.check_caller(scope, ("any", "anonymous", "principal"))
        require = a.get("require_owner") is True
        if limit is not None and limit <= 0:
            return []
        out = []
        for task in self.legacy.values():
            if status is not None and self.status_of(task) != status:
                continue
            if not self.can_see(self.legacy_owner(task), scope, require):
                continue
            out.append(copy(task))
            if limit is not None and len(out) >= limit:
                break
        return out

    def legacy_cancel(self, a):
        tid = self.legacy_find(a)
        self.legacy[tid]["status"] = "cancelled"
        return copy(self.legacy[tid])

    def legacy_cleanup(self, a):
        ttl = arg(a, "ttl_ms", int)
        now = self.now()
        doomed = []
        for tid, task in self.legacy.items():
            created = task.get("created_at")
            if self.status_of(task) not in TERMINAL:
                continue
            if not isinstance(created, int) or isinstance(created, bool):
                continue  # no age, kept
            if now - created > ttl:
                doomed.append(tid)
        for tid in doomed:
            del self.legacy[tid]
        return len(doomed)

    # Modern era (docs/spec.md 2.1) -------------------------------------------------------------

    KEYS = ("task_id", "owner", "status", "status_message", "created_at_ms", "last_updated_at_ms",
            "ttl_ms", "poll_interval_ms", "result", "error", "input_requests", "staged_responses",
            "input_responses", "issued_keys", "version")

    def modern_task(self, a):
        t = arg(a, "task", dict)
        if set(t) != set(self.KEYS):
            raise StoreError("invalid", "a task has exactly the keys of docs/wire.md")
        check_id(t["task_id"])
        return copy(t)

    def expired(self, t):
        return t["ttl_ms"] is not None and self.now() >= t["created_at_ms"] + t["ttl_ms"]

    def visible(self, t, caller):
        # At the store require_owner is off (docs/spec.md 2.1).
        return not self.expired(t) and self.can_see(t["owner"] or "", caller, False)

    def modern_create(self, a):
        t = self.modern_task(a)
        if t["task_id"] in self.modern:  # expired or not, until swept
            raise StoreError("exists", "task already exists: " + t["task_id"])
        t["version"] = 1
        self.modern[t["task_id"]] = t
        return copy(t)

    def modern_get(self, a):
        tid = check_id(arg(a, "task_id", str))
        caller = a.get("caller")
        self.check_caller(caller, ("system", "anonymous", "principal"))
        t = self.modern.get(tid)
        if t is None or not self.visible(t, caller):
            raise not_found(tid)
        return copy(t)

    def modern_swap(self, a):
        nxt = self.modern_task(a)
        caller = a.get("caller")
        self.check_caller(caller, ("system", "anonymous", "principal"))
        expected = arg(a, "expected_version", int)
        tid = nxt["task_id"]
        cur = self.modern.get(tid)
        if cur is None or not self.visible(cur, caller):
            raise not_found(tid)  # never conflict here: no existence leak (M-SWAP-2)
        for k in ("owner", "created_at_ms"):
            if nxt[k] != cur[k]:
                raise StoreError("invalid", "swap of task %s would change %s" % (tid, k))
        if cur["version"] != expected:
            raise StoreError("conflict", "task %s is at version %d, not %d" % (tid, cur["version"], expected))
        nxt["version"] = expected + 1
        self.modern[tid] = nxt
        return copy(nxt)

    def modern_delete(self, a):
        tid = check_id(arg(a, "task_id", str))
        self.modern.pop(tid, None)
        return None

    def modern_sweep(self, a):
        doomed = [tid for tid, t in self.modern.items() if self.expired(t)]
        for tid in doomed:
            del self.modern[tid]
        return len(doomed)

    # Session ------------------------------------------------------------------------------

    def hello(self, a):
        offered = a.get("protocol")
        if not isinstance(offered, int) or isinstance(offered, bool) or offered < 1:
            raise StoreError("unsupported", "this store speaks protocol 1 and 2")
        self.version = min(offered, 2)  # answer the newest version both sides speak
        h = {"protocol": self.version, "name": "python-example", "eras": list(self.ERAS),
             "legacy": {"cancel": True, "cleanup": True, "conditional_update": True},
             "clock": True, "delay": True}
        if self.version >= 2:
            h["layers"] = ["store", "facade"]
            h["facade"] = self.facade_settings()
        return h

    def facade_settings(self):
        # The ttl settings are the modern facade's (M-F-CREATE-1): a legacy-only facade
        # declares require_owner alone.
        if "modern" in self.ERAS:
            return {"require_owner": True, "default_ttl": True, "max_ttl": True}
        return {"require_owner": True}

    def do_reset(self, a):
        self.reset()
        return None

    def clock(self, a):
        self.fixed_now = arg(a, "now_ms", int, nullable=True)
        return None

    def delay(self, a):
        # The next store operation sleeps this long first (S-CTX-1 cancels a call while
        # the store holds it back; storecheck's client must stop waiting for it).
        ms = arg(a, "ms", int)
        if ms < 0 or ms > 10000:
            raise StoreError("invalid", "ms must be from 0 to 10000")
        self.delay_ms = ms
        return None


OPS = {
    "hello": Store.hello,
    "reset": Store.do_reset,
    "clock": Store.clock,
    "delay": Store.delay,
    "legacy.create": Store.legacy_create,
    "legacy.get": Store.legacy_get,
    "legacy.update": Store.legacy_update,
    "legacy.delete": Store.legacy_delete,
    "legacy.list": Store.legacy_list,
    "legacy.cancel": Store.legacy_cancel,
    "legacy.cleanup": Store.legacy_cleanup,
    "legacy.update_if": Store.legacy_update_if,
    "modern.create": Store.modern_create,
    "modern.get": Store.modern_get,
    "modern.swap": Store.modern_swap,
    "modern.delete": Store.modern_delete,
    "modern.sweep": Store.modern_sweep,
}

SESSION_OPS = ("hello", "reset", "clock", "delay", "facade.configure")


def find_op(name, store, fac):
    """The method that answers op name and the object it runs on; None when unsupported."""
    if not isinstance(name, str) or name.split(".")[0] in set(("legacy", "modern")) - set(store.ERAS):
        return None, None
    if name in OPS:
        fn, target = OPS[name], store
    elif store.version >= 2 and name in facade_layer.OPS:  # the facade layer exists from protocol 2
        fn, target = facade_layer.OPS[name], fac
    else:
        return None, None
    return getattr(type(target), fn.__name__), target  # a subclass's override answers


def answer(line, store, fac):
    """The answer line (without its newline) to one request line; None for a line that is
    no request, which is said on stderr and left unanswered."""
    try:
        req = loads(line)
        rid = req["id"]
    except (ValueError, KeyError, TypeError) as e:
        print("store.py: cannot answer %r: %s" % (line[:200], e), file=sys.stderr)
        return None
    name = req.get("op")
    op, target = find_op(name, store, fac)
    try:
        if op is None:
            raise StoreError("unsupported", "unknown op %r" % (name,))
        args = req.get("args") or {}
        if not isinstance(args, dict):
            raise StoreError("invalid", "args must be an object")
        if name == "reset":
            fac.configure({})  # reset returns the facade to its defaults
            store.delay_ms = 0
        elif name not in SESSION_OPS and store.delay_ms:
            time.sleep(store.delay_ms / 1000.0)
            store.delay_ms = 0
        return '{"id":%s,"ok":%s}' % (dumps(rid), dumps(op(target, args)))
    except StoreError as e:
        return dumps({"id": rid, "error": {"code": e.code, "message": e.message}})
    except Exception as e:  # a bug in this store: say so, and keep serving
        print("store.py: %s failed: %r" % (req.get("op"), e), file=sys.stderr)
        return dumps({"id": rid, "error": {"code": "internal", "message": repr(e)}})


def open_store(store_class=Store, facade_class=facade_layer.Facade):
    """A new store and the facade over it."""
    store = store_class()
    return store, facade_class(store, StoreError, not_found, arg, copy, is_text)


def main(store_class=Store, facade_class=facade_layer.Facade):
    store, fac = open_store(store_class, facade_class)
    out = sys.stdout
    for line in sys.stdin.buffer:
        a = answer(line, store, fac)
        if a is not None:
            out.write(a + "\n")
            out.flush()


if __name__ == "__main__":
    main()
