"""What the GUI tests share besides fixtures (those are in ``tests/gui/conftest.py``):

    big_dims        a trained model's sizes without a model, and the panel that draws them
    count_windows   how many tests build a whole MainWindow (``python -m tests.gui.support.count_windows``)
    edit_history    a panel taken through a long history of edits, and one built where it ends
    figure_checks   exported figures drawn by other readers, how close two pictures are, PDF pages
    fresh_panel     a panel drawn afresh, to compare with one that followed many changes
    layout          where a panel's texts lie: overlapping, sticking out, cut
    plots           a bare plot to draw plot items on
    readability     which texts a reader cannot read whole (cut, overlapping, too small)
    reference       attention weights written out with numpy, independently of the engine
    restart         a real restart: a script run twice in its own process on one settings file
    stand_in_model  a trained model's view data without a model
    user_input      typing into a table's cell, a click through the window
"""
