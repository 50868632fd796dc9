"""The facade layer of the example (docs/wire.md, protocol 2): both eras' task
lifecycles over store.py's Store, the way a server's own facade (ConduitMCP's
ConduitMcp.Tasks, an SDK's request handler) sits over its store. storecheck runs the
L-F-* and M-F-* rules against it.

The child handles one request at a time, so every read-check-write below is atomic
without locks; a facade serving concurrent requests needs compare-and-swap (the modern
store's swap) or a conditional update (legacy update_if) for the same guarantees.
"""

import base64
import os

STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL = ("completed", "failed", "cancelled")
SYSTEM = {"scope": "system"}
# facade.configure's keys, the hello flag that declares each, and its default.
SETTINGS = (("require_owner", "require_owner", False), ("default_ttl_ms", "default_ttl", None),
            ("max_ttl_ms", "max_ttl", None))


class Facade:
    def __init__(self, store, error, not_found, arg, copy, is_text):
        # The store's helpers, passed in so that both files share one notion of an
        # argument, a copy and a not-found (S-OWN-2: one message for denied and missing).
        self.store, self.error, self.not_found = store, error, not_found
        self.arg, self.copy, self.is_text = arg, copy, is_text
        self.configure({})

    # Configuration (facade.configure; reset returns to the defaults) ---------------------

    def configure(self, a):
        # Everything is checked before anything is set: a refused configuration changes
        # nothing. A setting hello did not declare may only be sent at its default.
        declared = self.store.facade_settings()
        for key, flag, default in SETTINGS:
            v = a.get(key, default)
            if v != default and not declared.get(flag):
                raise self.error("unsupported", "this facade does not declare %s" % flag)
        if not isinstance(a.get("require_owner", False), bool):
            raise self.error("invalid", "require_owner must be a boolean")
        ttls = [self.arg(a, k, int, nullable=True) for k in ("default_ttl_ms", "max_ttl_ms")]
        if any(t is not None and t <= 0 for t in ttls):
            raise self.error("invalid", "a ttl must be positive or null")
        self.require_owner = a.get("require_owner") is True
        self.default_ttl, self.max_ttl = ttls
        return None

    def caller(self, a, key="caller"):
        c = a.get(key)
        self.store.check_caller(c, ("system", "anonymous", "principal"))
        return c

    def terminal(self, tid):
        return self.error("terminal", "task %s is in a terminal status" % tid)

    # Owners: absent, null and "" are all "no owner" (docs/spec.md section 0) ---------------

    def owner_arg(self, a):
        """The owner a create asks for: None for no owner, whether it came as null or "" ."""
        return self.arg(a, "owner", str, nullable=True) or None

    def sees(self, task, caller):
        """The owner truth table (S-OWN-1) for a task of either era, under this facade's
        require_owner. The system caller is the facade's own unscoped access."""
        return self.store.can_see(self.store.legacy_owner(task), caller, self.require_owner)

    # Legacy facade (docs/spec.md 1.2) ------------------------------------------------------

    def legacy_load(self, tid, caller):
        task = self.store.legacy.get(tid)
        if task is None or not self.sees(task, caller):
            raise self.not_found(tid)
        return task

    def legacy_create(self, a):
        meta = self.copy(self.arg(a, "metadata", dict))
        owner = self.owner_arg(a)
        if owner is not None:
            meta["owner"] = owner  # overrides a caller-supplied one (L-F-CREATE-1)
        return self.store.legacy_create({"task_id": a.get("task_id"), "metadata": meta})

    def legacy_get(self, a):
        tid = self.store.legacy_find(a)
        return self.copy(self.legacy_load(tid, self.caller(a)))

    def legacy_update(self, a):
        tid = self.store.legacy_find(a)
        changes = self.arg(a, "changes", dict)
        if a.get("caller") is not None:
            # The worker's write is unscoped; a scoped update is no part of the contract.
            raise self.error("invalid", "legacy.tasks.update: caller must be null (the worker's write)")
        task = self.legacy_load(tid, SYSTEM)
        if "status" in changes:  # status-changing: check finality and the table (L-F-FIN-1)
            if self.store.status_of(task) in TERMINAL:
                raise self.terminal(tid)
            to = changes["status"]
            if not self.is_text(to) or to not in STATUSES:
                raise self.error("invalid_transition", "task %s: no transition to %r" % (tid, to))
        return self.store.legacy_update({"task_id": tid, "changes": changes})

    def legacy_cancel(self, a):
        tid = self.store.legacy_find(a)
        task = self.legacy_load(tid, self.caller(a))
        if self.store.status_of(task) in TERMINAL:
            raise self.terminal(tid)  # a finished task stays finished
        return self.store.legacy_cancel({"task_id": tid})

    def legacy_list(self, a):
        status = self.arg(a, "status", str, nullable=True)
        limit = self.arg(a, "limit", int, nullable=True)
        caller = self.caller(a)
        # The scope comes from the caller, never from the request's "owner" (L-F-LIST-1).
        scope = {"scope": "any"} if caller["scope"] == "system" else caller
        if limit is not None and limit <= 0:
            return []
        rows = self.store.legacy_list({"status": status, "limit": None, "owner": scope,
                                       "require_owner": self.require_owner})
        out = []
        for row in rows:  # re-check every row: a store's pushdown may leak
            if status is not None and self.store.status_of(row) != status:
                continue
            if not self.sees(row, caller):
                continue
            out.append(row)
            if limit is not None and len(out) >= limit:
                break
        return out

    def legacy_cleanup(self, a):
        return self.store.legacy_cleanup(a)

    # Modern facade (docs/spec.md 2.2) ------------------------------------------------------

    def modern_load(self, a, caller):
        tid = self.store.check_task_id(a)
        t = self.store.modern.get(tid)
        if t is None or self.store.expired(t) or not self.sees(t, caller):
            raise self.not_found(tid)
        return self.copy(t)

    def modern_write(self, cur, nxt):
        nxt["last_updated_at_ms"] = max(self.store.now(), cur["last_updated_at_ms"])
        return self.store.modern_swap({"task": nxt, "caller": SYSTEM, "expected_version": cur["version"]})

    def modern_live(self, a, caller=SYSTEM):
        t = self.modern_load(a, caller)
        if t["status"] in TERMINAL:
            raise self.terminal(t["task_id"])
        return t

    def modern_create(self, a):
        o = self.arg(a, "options", dict)
        ttl = self.arg(o, "ttl_ms", int, nullable=True)
        poll = self.arg(o, "poll_interval_ms", int, nullable=True)
        if (ttl is not None and ttl <= 0) or (poll is not None and poll <= 0):
            raise self.error("invalid", "ttl and poll interval must be positive")
        if ttl is None:
            ttl = self.default_ttl
        if self.max_ttl is not None and (ttl is None or ttl > self.max_ttl):
            ttl = self.max_ttl
        now = self.store.now()
        task = {
            "task_id": base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("="),
            "owner": self.owner_arg(o),
            "status": "working", "status_message": self.arg(o, "status_message", str, nullable=True) or "",
            "created_at_ms": now, "last_updated_at_ms": now, "ttl_ms": ttl, "poll_interval_ms": poll,
            "result": None, "error": None, "input_requests": {}, "staged_responses": {},
            "input_responses": {}, "issued_keys": [], "version": 0,
        }
        return self.store.modern_create({"task": task})

    def modern_start_failed(self, a):
        # The start hook (run by storecheck) failed: the task fails with -32603.
        message = self.arg(a, "message", str)
        return self.modern_fail({"task_id": a.get("task_id"), "error": {"code": -32603, "message": message}})

    def modern_get(self, a):
        return self.modern_load(a, self.caller(a))

    def modern_status(self, a):
        return self.modern_load(a, SYSTEM)

    def modern_progress(self, a):
        message = self.arg(a, "message", str)
        cur = self.modern_live(a)
        nxt = self.copy(cur)
        nxt["status_message"] = message
        return self.modern_write(cur, nxt)

    def modern_require_input(self, a):
        requests = self.arg(a, "requests", dict)
        if not requests:
            raise self.error("invalid", "require_input needs at least one request")
        cur = self.modern_live(a)
        keys = sorted(requests)
        for k in keys:
            if k in cur["issued_keys"]:
                raise self.error("key_reused", "task %s key %r was issued before" % (cur["task_id"], k))
        nxt = self.copy(cur)
        nxt["status"] = "input_required"
        nxt["input_requests"].update(self.copy(requests))
        nxt["issued_keys"] = nxt["issued_keys"] + keys
        nxt["input_responses"] = {}  # the previous round's answers are cleared
        return self.modern_write(cur, nxt)

    def modern_update(self, a):
        responses = self.arg(a, "responses", dict)
        cur = self.modern_live(a, self.caller(a))
        nxt = self.copy(cur)
        applied = False
        for k, v in responses.items():
            if k not in nxt["input_requests"]:
                continue  # unknown, answered or never issued: ignored (M-F-INPUT-2)
            del nxt["input_requests"][k]
            nxt["staged_responses"][k] = self.copy(v)
            applied = True
        if not applied:
            return cur
        if not nxt["input_requests"]:  # the last answer: deliver all at once
            nxt["input_responses"] = nxt["staged_responses"]
            nxt["staged_responses"] = {}
            nxt["status"] = "working"
        return self.modern_write(cur, nxt)

    def modern_finish(self, a, status, key, value, caller=SYSTEM):
        cur = self.modern_live(a, caller)
        nxt = self.copy(cur)
        nxt["status"] = status
        if key:
            nxt[key] = value
        return self.modern_write(cur, nxt)

    def modern_complete(self, a):
        result = self.arg(a, "result", dict, nullable=True)
        return self.modern_finish(a, "completed", "result", self.copy(result) if result is not None else {})

    def modern_fail(self, a):
        return self.modern_finish(a, "failed", "error", self.copy(self.arg(a, "error", dict)))

    def modern_cancel(self, a):
        return self.modern_finish(a, "cancelled", None, None, self.caller(a))


# The facade ops of docs/wire.md (protocol 2), each an unbound method of Facade.
OPS = {"facade.configure": Facade.configure}
for _name in ("create", "get", "update", "cancel", "list", "cleanup"):
    OPS["legacy.tasks." + _name] = getattr(Facade, "legacy_" + _name)
for _name in ("create", "start_failed", "get", "status", "progress", "require_input", "complete", "fail",
              "update", "cancel"):
    OPS["modern.tasks." + _name] = getattr(Facade, "modern_" + _name)
