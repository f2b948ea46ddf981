"""Load an open-weight model and its tokenizer from a local folder or the Hugging Face cache.

A folder is loaded by path; anything else is a hub id, looked up in the local cache first and
then, unless ``offline`` (or ``HF_HUB_OFFLINE=1``), downloaded. Every failure is one
:class:`~abw.errors.AbwInputError` line naming the model: a broken folder too (see
:func:`_loading`), and a folder without tokenizer files (:func:`_check_tokenizer`). Causal LMs
(an architecture ending in ``ForCausalLM`` or ``LMHeadModel``) are loaded with their LM head;
anything else is loaded as an encoder, whose steps get geometry but no entropy.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
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
    folder: str | None = None  # the model's folder, named by its errors
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
    """Transformers' and the hub's own lines off (progress bars, warnings, the hub's "Retrying
    in 8s [Retry 4/5]" while it cannot be reached): an error is abw's one line."""
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    try:
        from huggingface_hub.utils import disable_progress_bars
        from huggingface_hub.utils import logging as hub_logging

        disable_progress_bars()
        hub_logging.set_verbosity_error()
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


def _reason(exc: BaseException) -> str:
    """What went wrong loading a model, on one line (at most 200 characters)."""
    from abw.text import exception_words

    text = exception_words(exc)
    if "ignore_mismatched_sizes" in text or "size mismatch" in text:
        return (
            "its weights do not have the sizes its config.json gives (hidden_size, layers, "
            "vocabulary): the config and the weights are of different models"
        )
    return text[:200]


@contextlib.contextmanager
def _loading(name: str, folder: str | None) -> Iterator[None]:
    """Around a third-party loading call (``from_pretrained``, the tokenizer's first use) and
    nothing else: whatever a broken model folder makes it raise is a one-line
    :class:`AbwInputError` naming the model (and its ``folder``, for one).

    It catches :class:`Exception`, not a list of types, on purpose: transformers, safetensors,
    huggingface_hub and the tokenizers crate raise OSError, ValueError, KeyError, TypeError,
    RuntimeError (weights of other sizes than the config's), ``SafetensorError`` (a truncated
    file), ``StrictDataclassError`` (a config value of the wrong type) and the tokenizers crate's
    plain ``Exception`` (a tokenizer.json of the wrong shape). No abw code runs inside, so no
    abw bug is hidden; MemoryError is not caught.
    """
    try:
        yield
    except AbwInputError:
        raise
    except MemoryError:
        raise
    except Exception as exc:
        reason = _reason(exc)
        raise AbwInputError(
            f"cannot load model {name!r}: {reason}", file=folder, field="--model"
        ) from None


def _config_size(config: Any, key: str, name: str, folder: str | None) -> int:
    """A size from the model's config (``num_hidden_layers``, ``hidden_size``): a whole number
    of at least 1, else a one-line error naming the model and the key."""
    value = getattr(config, key, None)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AbwInputError(
            f"cannot load model {name!r}: config.json {key} is {value!r}, not a whole number "
            "of at least 1",
            file=folder,
            field="--model",
        )
    return value


def _check_tokenizer(tokenizer: Any, name: str, folder: str | None) -> None:
    """Refuse a tokenizer that encodes text to no tokens: transformers builds one with an empty
    vocabulary when the folder has no tokenizer files, and every step would then read as empty."""
    with _loading(name, folder):
        ids = tokenizer("a b", add_special_tokens=False)["input_ids"]
    if not ids:
        raise AbwInputError(
            f"cannot load model {name!r}: its tokenizer has an empty vocabulary (it encodes "
            "text to no tokens); the folder lacks the model's tokenizer files (tokenizer.json, "
            "or vocab and merges files)",
            file=folder,
            field="--model",
        )


def broken(lm: LoadedModel, problem: str) -> AbwInputError:
    """The one-line error for a model that loaded but cannot give hidden states (``problem``),
    naming it and its folder, as a folder that does not load is named."""
    return AbwInputError(f"model {lm.name!r}: {problem}", file=lm.folder, field="--model")


def load_model(
    spec: str, *, device: str = "auto", dtype: str = "auto", offline: bool = False
) -> LoadedModel:
    """Load ``spec`` (folder or hub id) for inference on ``device`` in ``dtype``."""
    torch, transformers = require_extras()
    _quiet(transformers)
    device_name = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, device_name)
    source, name, local_only = _locate(spec, offline)
    folder = source if Path(source).is_dir() else None

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
    except MemoryError:
        raise
    except Exception as exc:  # as in _loading: only the third-party loaders ran
        reason = _reason(exc)  # a folder's (or a cached model's) own problem, unless:
        if not folder and isinstance(exc, OSError | ValueError) and local_only:
            reason = (  # a hub id the cache does not hold, and the hub was not asked
                "not a local folder and not in the Hugging Face cache, and offline (--offline "
                "or HF_HUB_OFFLINE) the hub is not asked (download it first, or pass a local "
                "folder)"
            )
        elif not folder and isinstance(exc, OSError | ValueError):
            reason = (
                "not a local folder, not in the Hugging Face cache, and the hub could not be "
                "reached (download it first, or pass a local folder)"
            )
        raise AbwInputError(
            f"cannot load model {name!r}: {reason}", file=folder, field="--model"
        ) from None
    _check_tokenizer(tokenizer, name, folder)
    if getattr(config, "is_encoder_decoder", False):
        raise AbwInputError(
            f"model {name!r} is an encoder-decoder; use a decoder or an encoder",
            file=folder,
            field="--model",
        )
    text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
    num_layers = _config_size(text_config, "num_hidden_layers", name, folder)
    hidden_size = _config_size(text_config, "hidden_size", name, folder)
    architectures = list(getattr(config, "architectures", None) or [])
    causal = any(str(arch).endswith(CAUSAL_SUFFIXES) for arch in architectures)
    loader = transformers.AutoModelForCausalLM if causal else transformers.AutoModel
    with _loading(name, folder):
        model = _from_pretrained(loader, source, local_only, dtype=torch_dtype)
    if getattr(model, "main_input_name", "input_ids") != "input_ids":
        raise AbwInputError(
            f"model {name!r} reads {model.main_input_name}, not text (input_ids); use a "
            "decoder or an encoder of text",
            file=folder,
            field="--model",
        )
    model.to(device_name)
    model.eval()
    prefix, suffix = _special_ids(tokenizer)
    return LoadedModel(
        name=name,
        model=model,
        tokenizer=tokenizer,
        has_lm_head=causal and model.get_output_embeddings() is not None,
        num_layers=num_layers,
        hidden_size=hidden_size,
        device=torch.device(device_name),
        dtype=torch_dtype,
        max_positions=getattr(text_config, "max_position_embeddings", None),
        prefix_ids=prefix,
        suffix_ids=suffix,
        config=text_config,
        folder=folder,
    )
