"""The main window and the features that add menus and docks to it: the panel grid, the lesson, the
experiments, the model actions, the export actions, the welcome and the panel help."""
