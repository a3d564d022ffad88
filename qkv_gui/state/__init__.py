"""The state every widget reads and writes: the Session (document, result, selection, undo stack), its file
(``session_file``: save, open, autosave, recovery) and a trained model's document and forward runner. Qt's core
only: draws nothing."""
