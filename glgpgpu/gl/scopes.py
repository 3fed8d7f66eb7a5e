"""The failure scope both pools share: what a call took inside `with pool.scope():`
and has not given back goes back if the call raises (a failure midway leaves
nothing behind)."""
from __future__ import annotations


class FailureScope:
    """`pool._scopes` is the list of open scopes (sets of ids), `pool._out` the objects
    handed out by id, `give_back(obj)` returns one."""

    def __init__(self, pool, give_back):
        self.pool, self.give_back = pool, give_back

    def __enter__(self):
        self.ids = set()
        self.pool._scopes.append(self.ids)
        return self

    def __exit__(self, exc_type, *exc):
        self.pool._scopes.remove(self.ids)
        if exc_type is not None:
            for i in list(self.ids):
                obj = self.pool._out.get(i)
                if obj is not None:
                    self.give_back(obj)
        return False
