"""idforge: unique IDs generated inside the process, with idforge's guarantees.

UUIDv7, UUIDv4 and ULID need no setup; a Snowflake generator takes a fixed node ID or leases
one from the same stores as ``idforge serve --lease``. A MaskKeyring turns internal keys into
public IDs that leak nothing and back (docs/PUBLIC-IDS.md). Every call goes through libidforge.so
(the C ABI); see docs/BINDINGS.md.
"""

import json as _json
import os as _os

from ._idforge import (  # noqa: F401  (re-exported)
    ClockError,
    Error,
    ExhaustedError,
    FencedError,
    ForkedError,
    InternalError,
    InvalidArgumentError,
    LayoutError,
    LeaseError,
    MaskKeyError,
    MaskKeyring,
    NodeOutOfRangeError,
    NotOursError,
    ParseError,
    Snowflake,
    StoreUnreachableError,
    UnknownOptionError,
    __version__,
    compose,
    decompose,
    new_mask_key,
    parse_ulid,
    parse_uuid,
    ulid,
    uuid4,
    uuid4_str,
    uuid7,
    uuid7_str,
)
from ._idforge import _after_fork_in_child, _inspect_json

__all__ = [
    "ClockError", "Error", "ExhaustedError", "FencedError", "ForkedError", "InternalError",
    "InvalidArgumentError", "LayoutError", "LeaseError", "MaskKeyError", "MaskKeyring",
    "NodeOutOfRangeError", "NotOursError", "ParseError", "Snowflake", "StoreUnreachableError",
    "UnknownOptionError", "compose", "decompose", "inspect", "new_mask_key", "parse_ulid",
    "parse_uuid", "ulid", "uuid4", "uuid4_str", "uuid7", "uuid7_str",
]


def inspect(id, layout=None):
    """What ``idforge inspect --json`` prints for id (a str, or an int for a Snowflake):
    kind, canonical form, unix_ms and every decoded field, plus a warning for IDs that carry
    their creation time. layout (default "twitter") reads Snowflakes."""
    if isinstance(id, bool) or not isinstance(id, (str, int)):
        raise TypeError(f"inspect() takes an ID as str or int, not {type(id).__name__}")
    return _json.loads(_inspect_json(str(id), layout))


# The library reseeds a forked child's CSPRNG by itself before its first random byte (a
# pthread_atfork handler); reseeding here, in the child, makes that happen at once. A
# Snowflake inherited by the child refuses (ForkedError) until rebind().
_os.register_at_fork(after_in_child=_after_fork_in_child)
