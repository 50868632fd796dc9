#!/usr/bin/env python3
"""The Python example store (examples/python-store) with one change, named by argv[1],
for storecheck's own tests:

- facade-owner-empty-denied: the facade takes owner "" for a real owner that no caller
  has: it stamps it, and shows such a task to the system caller only.
- facade-owner-empty-as-principal: the same, but such a task is shown to a caller whose
  principal id reads as "" (the anonymous caller, whatever require_owner says).
- wire-owner-null-as-principal: the facade decodes a create's owner null as the
  principal named "null" ("" stays no owner).
- facade-cancel-terminal-first: the legacy facade's Cancel answers a finished task with
  terminal before its owner check.
- facade-update-terminal-first: the modern facade's tasks/update answers a finished task
  with terminal before its owner check.
- legacy-only: the store serves the legacy era alone (its facade then declares
  require_owner only).
- backend-error: legacy.get fails the way a database driver does (an exception that is
  no StoreError), for the answer docs/wire.md gives to backend errors.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..",
                                "examples", "python-store"))

import facade  # noqa: E402
import store  # noqa: E402


class OwnerEmptyDenied(facade.Facade):
    def owner_arg(self, a):
        return self.arg(a, "owner", str, nullable=True)  # "" kept as an owner

    def sees_empty(self, caller):
        return caller["scope"] == "system"

    def sees(self, task, caller):
        if task.get("owner") == "" and store.is_text(task.get("owner")):
            return self.sees_empty(caller)
        return super().sees(task, caller)


class OwnerEmptyAsPrincipal(OwnerEmptyDenied):
    def sees_empty(self, caller):
        return caller["scope"] == "system" or caller.get("id", "") == ""


class OwnerNullAsPrincipal(facade.Facade):
    def owner_arg(self, a):
        if "owner" in a and a["owner"] is None:
            return "null"  # null read as a name
        return super().owner_arg(a)


class CancelTerminalFirst(facade.Facade):
    def legacy_cancel(self, a):
        tid = self.store.legacy_find(a)
        task = self.store.legacy.get(tid)
        if task is not None and self.store.status_of(task) in facade.TERMINAL:
            raise self.terminal(tid)  # finality answered before the caller is checked
        return super().legacy_cancel(a)


class UpdateTerminalFirst(facade.Facade):
    def modern_update(self, a):
        t = self.modern_load(a, facade.SYSTEM)
        if t["status"] in facade.TERMINAL:
            raise self.terminal(t["task_id"])  # finality answered before the caller is checked
        return super().modern_update(a)


class LegacyOnly(store.Store):
    ERAS = ("legacy",)


class BackendError(store.Store):
    def legacy_get(self, a):
        raise RuntimeError("SQLSTATE 08006: connection to the database was lost")


VARIANTS = {
    "facade-owner-empty-denied": {"facade_class": OwnerEmptyDenied},
    "facade-owner-empty-as-principal": {"facade_class": OwnerEmptyAsPrincipal},
    "wire-owner-null-as-principal": {"facade_class": OwnerNullAsPrincipal},
    "facade-cancel-terminal-first": {"facade_class": CancelTerminalFirst},
    "facade-update-terminal-first": {"facade_class": UpdateTerminalFirst},
    "legacy-only": {"store_class": LegacyOnly},
    "backend-error": {"store_class": BackendError},
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in VARIANTS:
        print("usage: variants.py %s" % "|".join(VARIANTS), file=sys.stderr)
        sys.exit(2)
    store.main(**VARIANTS[sys.argv[1]])
