"""graphmem: knowledge-graph memory for AI agents, served over MCP.

>>> from graphmem import MemoryService, Settings
"""

from graphmem.service import MemoryService
from graphmem.settings import Settings

__all__ = ["MemoryService", "Settings"]
__version__ = "0.1.0"
