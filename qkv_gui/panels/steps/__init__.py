"""The nine linked panels, one module each in lesson order, with the parts only they use."""
