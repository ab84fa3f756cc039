"""The default relevance cut, in a module of its own: the facade's and the tools' signatures name it without
importing recall (numpy and the projection), which a command that recalls nothing never loads."""

from __future__ import annotations

__all__ = ["DEFAULT_MIN_RELEVANCE"]

# The default cut: hits with less than a 1-in-200 chance of being wanted are left out. Measured with
# scripts/fit_relevance.py: up to 0.006 no gold hit in any top 15 of the four dev sets falls below it (so every
# R@k and AR@k is unchanged), 0.007 loses the first (MuSiQue), and a cut that helps precision costs recall
# (0.05: LoCoMo R@10 0.743 → 0.668). At 0.005 it leaves out 5 % of the unanswerable questions' search hits and
# 11 % of their associate memories; docs/retrieval.md, "Relevance" (service/recall/relevance.py).
DEFAULT_MIN_RELEVANCE = 0.005
