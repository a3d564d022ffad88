"""qkv_gui: the PySide6 + pyqtgraph desktop app. Reads engine results; never does the maths.

``MainWindow`` is imported lazily so that headless commands never load Qt.
"""


def __getattr__(name):
    if name == "MainWindow":
        from .window.main_window import MainWindow

        return MainWindow
    if name == "Session":
        from .state.session import Session

        return Session
    raise AttributeError(name)
