"""The lifecycle of a memory: reinforcement, decay, forgetting, correction, review and promotion."""
