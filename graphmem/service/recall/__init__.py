"""Recall: seed matching, spreading activation, search fusion, composition and graph pages."""
