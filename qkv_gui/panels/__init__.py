"""The panels: the base every panel builds on (``base``), the update queue that hands a new result to the
panels in sight a few at a time, and the catalog that declares every panel and experiment once.
``steps/`` holds the nine linked panels of the lesson, ``labs/`` the experiment docks and the model view."""
