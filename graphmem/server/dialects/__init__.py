"""Dialects: each seed system's tool names, parameters, defaults and result shapes over graphmem's engine."""
