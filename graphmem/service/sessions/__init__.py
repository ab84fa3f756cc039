"""Sessions, saved prompts and the timeline."""
