"""Pure algorithms over numpy, scipy and networkx values. No I/O, no mcp, no sqlmodel."""
