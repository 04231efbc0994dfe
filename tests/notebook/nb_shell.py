"""Reaching the TaskWeaverMagics instance a shell has loaded."""

from __future__ import annotations

from typing import Any


def magics(ip: Any) -> Any:
    return ip.magics_manager.registry["TaskWeaverMagics"]
