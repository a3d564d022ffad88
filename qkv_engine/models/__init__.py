"""Trained models (BERT, DistilBERT, GPT-2, and the Llama family: Llama, Mistral, Qwen2) opened offline and
run in numpy.

    from qkv_engine.models import load_model, find_models, ModelEdits
    model = load_model(folder)               # config.json + model.safetensors (or its shards) + tokenizer files
    trace = model.run("The cat sat.")        # every layer and head, and the output head's logits
    scenario = model.head_scenario(trace, layer=0, head=3)   # RoPE models: with their rotation
    model.predict(trace, position=-1, k=5)   # [(token as shown, id, probability), ...]

Reads safetensors and tokenizer files only: nothing is downloaded, nothing is unpickled.
The ``safetensors`` and ``tokenizers`` libraries are imported only when a model is opened.
"""
from ..errors import ModelError
from .architecture import SUPPORTED
from .cache import FoundModel, find_models, hf_cache_dir
from .edits import WEIGHT_NAMES, ModelEdits
from .model import Model, ModelInfo, ModelTrace, group_words, load_model

__all__ = [
    "FoundModel",
    "Model",
    "ModelEdits",
    "ModelError",
    "ModelInfo",
    "ModelTrace",
    "SUPPORTED",
    "WEIGHT_NAMES",
    "find_models",
    "group_words",
    "hf_cache_dir",
    "load_model",
]
