"""`lazy`: an attribute worked out on first access and then kept on the instance, without a lock.

functools.cached_property in Python 3.11 takes a per-descriptor lock on every first access; the table
reader makes hundreds of thousands of words and lines per filing and asks each for a few derived
attributes once, so that lock alone cost about 5 % of a read. Objects of this package are read by one
thread at a time (a worker process reads one document), so no lock is needed; like cached_property,
the value is stored in the instance's __dict__ and later reads never reach the descriptor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class lazy(Generic[T]):
    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, objtype: type | None = None) -> lazy[T]: ...

    @overload
    def __get__(self, obj: object, objtype: type | None = None) -> T: ...

    def __get__(self, obj: object | None, objtype: type | None = None) -> T | lazy[T]:
        if obj is None:
            return self
        value = self.func(obj)
        obj.__dict__[self.name] = value
        return value
