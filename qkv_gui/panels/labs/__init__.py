"""The experiments, each opened in a dock of its own, and the model view of a trained model."""
