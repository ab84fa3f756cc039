"""The MCP adapter: the only package that imports ``mcp``."""

from graphmem.server.app import build_server

__all__ = ["build_server"]
