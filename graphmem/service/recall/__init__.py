"""Recall: search and associate end to end (``service.py``): seed matching, spreading activation, search
fusion, decay weights and review blending, composition, skills, notes and graph pages."""
