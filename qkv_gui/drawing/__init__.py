"""Reusable graphics items for the pictures: the cell grid, plot marks and bars, text labels, axis helpers.
They know the look and the engine, never a Session."""
