"""A loopback OpenAI-compatible server for the tests (see README.md in this folder)."""

from .script import Reply, Script
from .server import FakeLLMServer

__all__ = ["FakeLLMServer", "Reply", "Script"]
