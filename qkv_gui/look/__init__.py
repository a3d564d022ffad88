"""How things look: palettes and themes, colours of roles, style sheets, colour tables, contrast checks.
Items recolour themselves (``set_colours``): nothing here knows a drawing item."""
