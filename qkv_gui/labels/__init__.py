"""Label widgets that words change in at every edit without laying the window out again: steady boxes,
wrapped and elided labels, captions, rich spans."""
