"""The built-in model's own grammar, vocabulary and tokenizer (see grammar.py and vocabulary.py).

Used by tools/train_builtin_model.py, tools/evaluate_builtin_model.py and the tests;
nothing here needs torch.
"""
