"""Hidden states and next-token entropy at the end of each step, for many trajectories at once.

Contexts (``context``):

- ``cumulative`` (default): step ``t`` is read at its last token with steps ``0..t`` before it,
  as the agent's context grows. Each step after the first is tokenized as ``"\\n" + text``.
- ``step``: every step alone.

Methods (``method``):

- ``batched`` (default): for a causal model, ONE forward pass over the whole concatenated
  trajectory gives every step's vector, because causal attention makes position ``p`` depend
  only on tokens ``<= p`` — the same numbers as a KV-cache step-after-step loop, in one call.
  Sequences of many trajectories are padded on the right into batches of about
  ``batch_tokens`` tokens; each step is read at its own last real token. An encoder sees the
  whole sequence, so each cumulative prefix is its own (batched) sequence.
- ``naive``: one forward pass per step over exactly the tokens that step sees, with the model's
  full logits; the reference the batched path is tested and benchmarked against.

A context longer than ``max_context_tokens`` is cut into consecutive segments; each segment
starts a fresh context (velocity across the cut still compares the two vectors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from abw.errors import AbwInputError
from abw.latent.model import LoadedModel, broken

CONTEXTS = ("cumulative", "step")
METHODS = ("batched", "naive")


@dataclass
class Extracted:
    """Per-step results of one trajectory."""

    vectors: np.ndarray  # (steps, hidden) float32
    entropies: list[float | None]
    token_counts: list[int]


@dataclass
class _Sequence:
    ids: list[int]
    targets: list[tuple[int, int, int]]  # (trajectory, step, position in ids)


def refuse_undecodable(text: str, what: str, field: str) -> None:
    """Refuse text that is no Unicode: lone surrogates, which is how Python hands over the bytes
    of a command-line argument that are not UTF-8 (``--step $'ab\\xffcd'``) and how JSON can
    spell half of a character. No tokenizer can encode it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise AbwInputError(
            f"{what} is not valid UTF-8 text (character {exc.start} is a lone surrogate, "
            "e.g. a byte that is not UTF-8)",
            field=field,
        ) from None


def tokenize_steps(
    lm: LoadedModel, texts: list[str], *, context: str, max_step_tokens: int, label: str = ""
) -> list[list[int]]:
    """Token ids of each step (no special tokens), cut to their first ``max_step_tokens``.

    All steps go to the tokenizer in one call (a fast tokenizer encodes a list in parallel and
    gives each text the ids it would get alone).
    """
    for index, text in enumerate(texts):
        refuse_undecodable(text, f"{label}step {index}", "step")
    shown = [
        "\n" + text if context == "cumulative" and index > 0 else text
        for index, text in enumerate(texts)
    ]
    encoded = lm.tokenizer(shown, add_special_tokens=False)["input_ids"] if shown else []
    out = []
    for index, (text, ids) in enumerate(zip(texts, encoded, strict=True)):
        if not text.strip() or not ids:
            raise AbwInputError(f"{label}step {index} is empty", field="step")
        out.append(list(ids)[:max_step_tokens])
    return out


def _segments(steps: list[list[int]], budget: int) -> list[list[int]]:
    """Split step indices into consecutive groups whose tokens fit ``budget``."""
    groups: list[list[int]] = [[]]
    used = 0
    for index, ids in enumerate(steps):
        if groups[-1] and used + len(ids) > budget:
            groups.append([])
            used = 0
        groups[-1].append(index)
        used += len(ids)
    return groups


def _suffix(lm: LoadedModel) -> list[int]:
    """Trailing special tokens: only an encoder needs them (a decoder never sees the future)."""
    return [] if lm.has_lm_head else lm.suffix_ids


def _budget(lm: LoadedModel, max_context_tokens: int) -> int:
    """Text tokens that fit one context next to the special tokens."""
    return max(1, max_context_tokens - len(lm.prefix_ids) - len(_suffix(lm)))


def plan_sequences(
    lm: LoadedModel,
    trajectories: list[list[list[int]]],
    *,
    context: str,
    method: str,
    max_context_tokens: int,
) -> list[_Sequence]:
    """The sequences to run and, for each, which step ends at which position."""
    prefix, suffix = lm.prefix_ids, _suffix(lm)
    budget = _budget(lm, max_context_tokens)
    sequences: list[_Sequence] = []
    for traj, steps in enumerate(trajectories):
        steps = [ids[:budget] for ids in steps]
        if context == "step":
            for index, ids in enumerate(steps):
                end = len(prefix) + len(ids) - 1
                sequences.append(_Sequence(prefix + ids + suffix, [(traj, index, end)]))
            continue
        for group in _segments(steps, budget):
            one_pass = lm.has_lm_head and method == "batched"
            body: list[int] = []
            targets = []
            for index in group:
                body += steps[index]
                end = len(prefix) + len(body) - 1
                if one_pass:
                    targets.append((traj, index, end))
                else:
                    sequences.append(_Sequence(prefix + body + suffix, [(traj, index, end)]))
            if one_pass:
                sequences.append(_Sequence(prefix + body, targets))
    return sequences


def _batches(sequences: list[_Sequence], batch_tokens: int) -> list[list[_Sequence]]:
    """Longest first, as many per batch as fit ``batch_tokens`` padded tokens."""
    ordered = sorted(sequences, key=lambda s: -len(s.ids))
    batches: list[list[_Sequence]] = []
    for seq in ordered:
        if batches and (len(batches[-1]) + 1) * len(batches[-1][0].ids) <= batch_tokens:
            batches[-1].append(seq)
        else:
            batches.append([seq])
    return batches


def _logits(lm: LoadedModel, hidden: Any) -> Any:
    """Next-token logits from final hidden states, as the model's own head computes them."""
    logits = lm.model.get_output_embeddings()(hidden).float()
    scale = getattr(lm.config, "logit_scale", None)
    if isinstance(scale, int | float):
        logits = logits * scale
    cap = getattr(lm.config, "final_logit_softcapping", None)
    if cap:
        logits = (logits / cap).tanh() * cap
    return logits


def _entropy(torch: Any, logits: Any) -> Any:
    log_p = torch.log_softmax(logits.float(), dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def _forward(lm: LoadedModel, ids: Any, mask: Any, keep: Any) -> Any:
    """The whole model, every layer's states, logits for the last ``keep`` positions (or all)."""
    kwargs: dict[str, Any] = {
        "input_ids": ids,
        "attention_mask": mask,
        "output_hidden_states": True,
    }
    if lm.has_lm_head and keep is not None:
        try:
            return lm.model(**kwargs, logits_to_keep=keep)
        except TypeError:
            pass
    return lm.model(**kwargs)


def _hidden(lm: LoadedModel, ids: Any, mask: Any, layer: int, naive: bool) -> tuple[Any, Any, Any]:
    """``(layer states, final states, model logits or None)`` for a padded batch.

    The fast path runs only the backbone (``base_model``), and asks for every layer's states
    only when a layer other than the last is wanted; the naive path runs the whole model with
    its full logits.
    """
    if naive:
        out = _forward(lm, ids, mask, None)
        return out.hidden_states[layer], out.hidden_states[-1], getattr(out, "logits", None)
    final_only = layer == lm.num_layers
    out = lm.model.base_model(
        input_ids=ids, attention_mask=mask, output_hidden_states=not final_only
    )
    final = out.last_hidden_state
    return (final if final_only else out.hidden_states[layer]), final, None


def _run_batch(lm: LoadedModel, batch: list[_Sequence], layer: int, method: str) -> tuple[Any, Any]:
    """``(vectors, entropies or None)`` of the batch's targets, in order, left on the device.

    Nothing is copied back per batch, so the host queues the next batch while this one runs;
    :func:`extract` copies everything once at the end.
    """
    import torch

    width = len(batch[0].ids)
    pad = lm.tokenizer.pad_token_id
    pad = pad if pad is not None else (lm.tokenizer.eos_token_id or 0)
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, seq in enumerate(batch):
        ids[row, : len(seq.ids)] = torch.tensor(seq.ids, dtype=torch.long)
        mask[row, : len(seq.ids)] = 1
    rows = _embedding_rows(lm)
    if rows is not None and int(ids.max()) >= rows:
        raise broken(
            lm,
            f"its tokenizer gives token id {int(ids.max())}, but its embeddings hold {rows} "
            "rows: the tokenizer and the weights are of different models",
        )
    cuda = lm.device.type == "cuda"
    ids = ids.to(lm.device, non_blocking=cuda)
    mask = mask.to(lm.device, non_blocking=cuda)
    rows = [row for row, seq in enumerate(batch) for _ in seq.targets]
    positions = [pos for seq in batch for (_, _, pos) in seq.targets]
    naive = method == "naive"
    layer_states, final, model_logits = _hidden(lm, ids, mask, layer, naive)
    row_t = torch.tensor(rows, device=lm.device)
    pos_t = torch.tensor(positions, device=lm.device)
    vectors = layer_states[row_t, pos_t].float()
    if not lm.has_lm_head:
        return vectors, None
    if naive:  # the model's own full logits: the reference
        logits = model_logits[row_t, pos_t]
    else:
        logits = _logits(lm, final[row_t, pos_t])
        if not lm.lm_head_checked:
            _check_head(lm, batch[0], final[0])
        if not lm.lm_head_ok:
            logits = _full_logits(lm, batch)
    return vectors, _entropy(torch, logits)


def _embedding_rows(lm: LoadedModel) -> int | None:
    """How many token ids the model's input embeddings hold, when it says."""
    embeddings = (
        lm.model.get_input_embeddings() if hasattr(lm.model, "get_input_embeddings") else None
    )
    rows = getattr(embeddings, "num_embeddings", None)
    return rows if isinstance(rows, int) else None


def _check_head(lm: LoadedModel, seq: _Sequence, final: Any) -> None:
    """Once per model: the head on the backbone's last state must equal the model's logits."""
    import torch

    lm.lm_head_checked = True
    ids = torch.tensor([seq.ids], device=lm.device)
    out = _forward(lm, ids, torch.ones_like(ids), 1)
    theirs = out.logits[0, -1].float()
    mine = _logits(lm, final[len(seq.ids) - 1])
    tol = 1e-2 * max(1.0, float(theirs.abs().max()))
    lm.lm_head_ok = bool(torch.allclose(mine, theirs, atol=tol, rtol=1e-2))


def _full_logits(lm: LoadedModel, batch: list[_Sequence]) -> Any:
    """Fallback when the head cannot be applied to hidden states: one sequence at a time."""
    import torch

    parts = []
    for seq in batch:
        ids = torch.tensor([seq.ids], device=lm.device)
        keep = torch.tensor([pos for (_, _, pos) in seq.targets], device=lm.device)
        out = _forward(lm, ids, torch.ones_like(ids), keep)
        logits = out.logits[0]
        parts.append(logits if logits.shape[0] == len(keep) else logits[keep])
    return torch.cat(parts, dim=0).float()


def extract(
    lm: LoadedModel,
    trajectories: list[list[str]],
    *,
    layer: int = -1,
    context: str = "cumulative",
    method: str = "batched",
    max_step_tokens: int = 256,
    max_context_tokens: int = 4096,
    batch_tokens: int = 16384,
) -> list[Extracted]:
    """Per-step vectors (layer ``layer``), entropies and token counts of every trajectory."""
    import torch

    if context not in CONTEXTS:
        raise AbwInputError(f"context {context!r} is not one of {', '.join(CONTEXTS)}")
    if method not in METHODS:
        raise AbwInputError(f"method {method!r} is not one of {', '.join(METHODS)}")
    if lm.max_positions:
        max_context_tokens = min(max_context_tokens, int(lm.max_positions))
    index = lm.resolve_layer(layer)
    tokenized = [
        tokenize_steps(
            lm, texts, context=context, max_step_tokens=max_step_tokens, label=f"trajectory {t}: "
        )
        for t, texts in enumerate(trajectories)
    ]
    sequences = plan_sequences(
        lm, tokenized, context=context, method=method, max_context_tokens=max_context_tokens
    )
    budget = 1 if method == "naive" else batch_tokens
    keys: list[tuple[int, int]] = []
    vector_parts, entropy_parts = [], []
    with torch.inference_mode():
        for batch in _batches(sequences, budget):
            vectors, entropies = _run_batch(lm, batch, index, method)
            keys += [(traj, step) for seq in batch for (traj, step, _) in seq.targets]
            vector_parts.append(vectors)
            entropy_parts.append(entropies)
        all_vectors = torch.cat(vector_parts).cpu().numpy() if keys else None
        all_entropies: list[float | None] = (
            torch.cat(entropy_parts).cpu().tolist()
            if keys and lm.has_lm_head
            else [None] * len(keys)
        )
    finite = all_vectors is None or bool(np.isfinite(all_vectors).all())
    if not finite or any(e is not None and not math.isfinite(e) for e in all_entropies):
        raise broken(
            lm,
            "its hidden states hold NaN or infinite values (broken or overflowing weights, or "
            "a --dtype too narrow for them: try --dtype float32)",
        )
    found = {key: (all_vectors[i], all_entropies[i]) for i, key in enumerate(keys)}
    results = []
    for traj, steps in enumerate(tokenized):
        cut = _budget(lm, max_context_tokens)
        pairs = [found[(traj, step)] for step in range(len(steps))]
        results.append(
            Extracted(
                vectors=np.stack([v for v, _ in pairs]).astype(np.float32)
                if pairs
                else np.zeros((0, lm.hidden_size), dtype=np.float32),
                entropies=[e for _, e in pairs],
                token_counts=[min(len(ids), cut) for ids in steps],
            )
        )
    return results
