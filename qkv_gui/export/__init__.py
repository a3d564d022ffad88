"""Figures, decks and data files: what File → Export and the headless ``export`` command write."""
