"""Random models and an offline tokenizer, saved to a folder: for tests and benchmarks.

``make_tiny_model`` builds a small model of a given kind; ``make_sized_model`` builds one with the
architecture and size of a published open-weight model (its ``config.json`` values, in
:data:`SIZES`), for measuring speed and memory at model scale. The weights are random, so the
numbers mean nothing; the code path (config, tokenizer files, ``from_pretrained`` by folder,
forward passes) is the real one. Nothing is downloaded: the tokenizer is always the small one
trained here, so a text gives more tokens than the real model's tokenizer would.

    python -m abw.latent.tiny qwen2.5-0.5b FOLDER     # build a sized model into FOLDER
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abw.latent import require_extras

KINDS = ("qwen2", "llama", "bert")

#: Qwen2.5's published configurations (``config.json`` of Qwen/Qwen2.5-0.5B and -1.5B).
SIZES: dict[str, dict[str, object]] = {
    "qwen2.5-0.5b": {
        "hidden_size": 896,
        "intermediate_size": 4864,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
    },
    "qwen2.5-1.5b": {
        "hidden_size": 1536,
        "intermediate_size": 8960,
        "num_hidden_layers": 28,
        "num_attention_heads": 12,
        "num_key_value_heads": 2,
    },
}
_QWEN25_COMMON = {
    "vocab_size": 151936,
    "max_position_embeddings": 32768,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": True,
    "hidden_act": "silu",
}

_CORPUS = [
    "the agent classifies the request as refund related",
    "the agent looks up the order record in the database",
    "the agent checks the refund policy before calling the refund tool",
    "the agent issues the refund and reports the result to the user",
    "Bash Read Write Edit Grep Glob Task WebFetch TodoWrite command file_path pattern",
    '{ } [ ] : , " . / _ - 0 1 2 3 4 5 6 7 8 9 ls git status pytest tests',
]


def build_tokenizer(kind: str) -> object:
    """A tokenizer trained here on a few sentences, wrapped for transformers.

    Byte-level BPE (as Qwen2 and GPT-2 use) for decoders, WordPiece with ``[CLS] … [SEP]`` for
    BERT; Llama's gets a ``<s>`` BOS token, so all three special-token layouts are exercised.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "[PAD]", "<s>", "</s>", "[CLS]", "[SEP]", "[MASK]"]
    if kind == "bert":
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.train_from_iterator(
            _CORPUS,
            trainers.WordPieceTrainer(vocab_size=400, special_tokens=specials, show_progress=False),
        )
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            special_tokens=[
                ("[CLS]", tok.token_to_id("[CLS]")),
                ("[SEP]", tok.token_to_id("[SEP]")),
            ],
        )
    else:
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=400,
            special_tokens=specials,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tok.train_from_iterator(_CORPUS, trainer)
        if kind == "llama":
            tok.post_processor = processors.TemplateProcessing(
                single="<s> $A", special_tokens=[("<s>", tok.token_to_id("<s>"))]
            )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        eos_token="</s>",
        bos_token="<s>",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )


def make_tiny_model(
    folder: str | Path, kind: str = "qwen2", *, hidden: int = 32, layers: int = 2, seed: int = 0
) -> Path:
    """Save a ``kind`` model (random weights) and its tokenizer to ``folder``; return it."""
    torch, transformers = require_extras()
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    tokenizer = build_tokenizer(kind)
    vocab = len(tokenizer)  # type: ignore[arg-type]
    common = {
        "vocab_size": vocab,
        "hidden_size": hidden,
        "intermediate_size": hidden * 2,
        "num_hidden_layers": layers,
        "num_attention_heads": 4,
        "max_position_embeddings": 2048,
    }
    torch.manual_seed(seed)
    if kind == "qwen2":
        config = transformers.Qwen2Config(num_key_value_heads=2, **common)
        model = transformers.Qwen2ForCausalLM(config)
    elif kind == "llama":
        config = transformers.LlamaConfig(num_key_value_heads=2, **common)
        model = transformers.LlamaForCausalLM(config)
    else:
        config = transformers.BertConfig(**common)
        model = transformers.BertModel(config)
    folder = Path(folder)
    transformers.utils.logging.disable_progress_bar()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)  # type: ignore[attr-defined]
    return folder


def sized_config(size: str) -> Any:
    """The ``transformers.Qwen2Config`` of the published ``size`` (see :data:`SIZES`)."""
    _, transformers = require_extras()
    if size not in SIZES:
        raise ValueError(f"size must be one of {tuple(SIZES)}")
    return transformers.Qwen2Config(**_QWEN25_COMMON, **SIZES[size])


def make_sized_model(folder: str | Path, size: str, *, seed: int = 0) -> Path:
    """Save a random Qwen2 model of the published ``size`` (see :data:`SIZES`); return ``folder``.

    Built on the GPU when torch sees one (random init of 1.5B parameters on the CPU is slow) and
    saved in bfloat16, as the published weights are; loading it in float32 widens them exactly.
    """
    torch, transformers = require_extras()
    config = sized_config(size)
    tokenizer = build_tokenizer("qwen2")
    torch.manual_seed(seed)
    with torch.device("cuda" if torch.cuda.is_available() else "cpu"):
        model = transformers.Qwen2ForCausalLM(config).to(torch.bfloat16)
    folder = Path(folder)
    transformers.utils.logging.disable_progress_bar()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)  # type: ignore[attr-defined]
    return folder


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3 or sys.argv[1] not in SIZES:
        sys.exit(f"usage: python -m abw.latent.tiny {{{','.join(SIZES)}}} FOLDER")
    print(make_sized_model(sys.argv[2], sys.argv[1]))
