"""Data files shipped with QKV Visualizer (lesson texts, icons).

Installed as the package ``qkv_resources``; in a source checkout it is the
top-level ``resources/`` folder. Use ``qkv_gui.resources.resource_dir()``.
"""
