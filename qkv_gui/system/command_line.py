"""What the two ways in (the window app and the headless export) share on the command line."""
from __future__ import annotations

import argparse

#: What --model takes, in both commands.
MODEL_FOLDER = ("a trained model's folder (config.json, model.safetensors, and tokenizer.json or vocab.txt); "
                "'builtin' for the small model the app ships")


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line, exit code 2."""

    def error(self, message):  # noqa: D401
        self.exit(2, f"{self.prog}: error: {message}\n")


def add_model(parser, text_help: str, group=None) -> None:
    """--model PATH (in ``group`` when given, e.g. a mutually exclusive one, else on ``parser``) and --text TEXT
    on ``parser`` (``text_help``: what the text is for)."""
    (group if group is not None else parser).add_argument("--model", metavar="PATH", help=MODEL_FOLDER)
    parser.add_argument("--text", metavar="TEXT", help=f"with --model: {text_help}")
