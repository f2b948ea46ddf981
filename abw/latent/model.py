"""Load an open-weight model and its tokenizer from a local folder or the Hugging Face cache.

A folder is loaded by path; anything else is a hub id, looked up in the local cache first and
then, unless ``offline`` (or ``HF_HUB_OFFLINE=1``), downloaded. Every failure is one
:class:`~abw.errors.AbwInputError` line. Causal LMs (an architecture ending in ``ForCausalLM`` or
``LMHeadModel``) are loaded with their LM head; anything else is loaded as an encoder, whose
steps get geometry but no entropy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.latent import require_extras

CAUSAL_SUFFIXES = ("ForCausalLM", "LMHeadModel")
DTYPES = ("auto", "float32", "bfloat16", "float16")
DEVICES = ("auto", "cpu", "cuda")


@dataclass
class LoadedModel:
    """A model ready for hidden-state extraction."""

    name: str
    model: Any
    tokenizer: Any
    has_lm_head: bool
    num_layers: int
    hidden_size: int
    device: Any  # torch.device
    dtype: Any  # torch.dtype
    max_positions: int | None
    prefix_ids: list[int] = field(default_factory=list)  # special tokens before the text
    suffix_ids: list[int] = field(default_factory=list)  # special tokens after it
    config: Any = None
    lm_head_checked: bool = False
    lm_head_ok: bool = True

    @property
    def dtype_name(self) -> str:
        return str(self.dtype).removeprefix("torch.")

    def resolve_layer(self, layer: int) -> int:
        """Index into ``hidden_states`` (0 = embeddings, num_layers = final); negative from end."""
        count = self.num_layers + 1
        if not -count <= layer < count:
            raise AbwInputError(
                f"layer {layer} is out of range for a model with {self.num_layers} layers "
                f"(use {-count}..{count - 1})",
                field="--layer",
            )
        return layer % count


def resolve_device(device: str) -> str:
    torch, _ = require_extras()
    if device not in DEVICES:
        raise AbwInputError(
            f"device {device!r} is not one of {', '.join(DEVICES)}", field="--device"
        )
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise AbwInputError("--device cuda asked for, but torch sees no CUDA GPU", field="--device")
    return device


def resolve_dtype(dtype: str, device: str) -> Any:
    """auto: bfloat16 on CUDA, float32 on the CPU."""
    torch, _ = require_extras()
    if dtype not in DTYPES:
        raise AbwInputError(f"dtype {dtype!r} is not one of {', '.join(DTYPES)}", field="--dtype")
    if dtype == "auto":
        return torch.bfloat16 if device == "cuda" else torch.float32
    return getattr(torch, dtype)


def _quiet(transformers: Any) -> None:
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    try:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    except ImportError:  # pragma: no cover - huggingface_hub always comes with transformers
        pass


def _special_ids(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The special tokens the tokenizer puts before and after a text (e.g. BOS, [CLS] … [SEP])."""
    bare = tokenizer("a b", add_special_tokens=False)["input_ids"]
    full = tokenizer("a b", add_special_tokens=True)["input_ids"]
    for start in range(len(full) - len(bare) + 1):
        if bare and full[start : start + len(bare)] == bare:
            return list(full[:start]), list(full[start + len(bare) :])
    return [], []


def _from_pretrained(loader: Any, source: str, local_only: bool, **kwargs: Any) -> Any:
    return loader.from_pretrained(source, local_files_only=local_only, **kwargs)


def _locate(spec: str, offline: bool) -> tuple[str, str, bool]:
    """``(source, display name, local_files_only)`` for a folder or a hub id."""
    path = Path(spec).expanduser()
    if path.is_dir():
        return str(path), path.resolve().name, True
    if path.exists() or spec.startswith((".", "/", "~")) or os.sep + os.sep in spec:
        raise AbwInputError("not a model folder", file=spec, field="--model")
    offline = offline or os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0")
    return spec, spec, offline


def load_model(
    spec: str, *, device: str = "auto", dtype: str = "auto", offline: bool = False
) -> LoadedModel:
    """Load ``spec`` (folder or hub id) for inference on ``device`` in ``dtype``."""
    torch, transformers = require_extras()
    _quiet(transformers)
    device_name = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, device_name)
    source, name, local_only = _locate(spec, offline)

    def attempt(local: bool) -> tuple[Any, Any]:
        config = _from_pretrained(transformers.AutoConfig, source, local)
        tokenizer = _from_pretrained(transformers.AutoTokenizer, source, local)
        return config, tokenizer

    try:
        try:
            config, tokenizer = attempt(True)
            local_only = True
        except OSError:
            if local_only:
                raise
            config, tokenizer = attempt(False)
    except (OSError, ValueError) as exc:
        where = "folder" if Path(source).is_dir() else "hub id"
        reason = " ".join(str(exc).split())[:200]
        if where == "hub id" and local_only:  # offline: the hub was never asked
            reason = (
                "not a local folder and not in the Hugging Face cache, and offline (--offline "
                "or HF_HUB_OFFLINE) the hub is not asked (download it first, or pass a local "
                "folder)"
            )
        elif where == "hub id":
            reason = (
                "not a local folder, not in the Hugging Face cache, and the hub could not be "
                "reached (download it first, or pass a local folder)"
            )
        raise AbwInputError(f"cannot load model {name!r}: {reason}", field="--model") from None
    if getattr(config, "is_encoder_decoder", False):
        raise AbwInputError(
            f"model {name!r} is an encoder-decoder; use a decoder or an encoder", field="--model"
        )
    architectures = list(getattr(config, "architectures", None) or [])
    causal = any(arch.endswith(CAUSAL_SUFFIXES) for arch in architectures)
    loader = transformers.AutoModelForCausalLM if causal else transformers.AutoModel
    try:
        model = _from_pretrained(loader, source, local_only, dtype=torch_dtype)
    except (OSError, ValueError, KeyError) as exc:
        reason = " ".join(str(exc).split())[:200]
        raise AbwInputError(f"cannot load model {name!r}: {reason}", field="--model") from None
    model.to(device_name)
    model.eval()
    text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
    prefix, suffix = _special_ids(tokenizer)
    return LoadedModel(
        name=name,
        model=model,
        tokenizer=tokenizer,
        has_lm_head=causal and model.get_output_embeddings() is not None,
        num_layers=int(text_config.num_hidden_layers),
        hidden_size=int(text_config.hidden_size),
        device=torch.device(device_name),
        dtype=torch_dtype,
        max_positions=getattr(text_config, "max_position_embeddings", None),
        prefix_ids=prefix,
        suffix_ids=suffix,
        config=text_config,
    )
