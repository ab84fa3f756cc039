"""placeholder"""
TOOLS: dict = {}
