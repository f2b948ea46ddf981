"""What an evaluation's record holds around its events: the task it names, its model, and the
fields never read."""

from __future__ import annotations

from typing import Any

from abw.importers.common import identifier
from abw.importers.rawio import as_dict

#: What an evaluation's output holds around the events, never read (the task's text, the patch,
#: the error, the model's answer ...): EvalOutput's fields (``llm_completions``, the raw model
#: calls, in late 2024), then those of OpenDevin's benchmarks of mid-2024, which wrote their own
#: records (``final_message``, ``messages``: logic_reasoning; ``text``: gorilla, toolqa; ...).
INSTANCE_FIELDS = (
    "instruction",
    "instance",
    "test_result",
    "metadata",
    "metrics",
    "error",
    "llm_completions",
    "final_message",
    "messages",
    "text",
    "generated",
    "biocoder_instance",
    "swe_instance",
    "git_patch",
    "agent_answer",
    "final_answer",
    "ground_truth",
    "eval_output",
    "eval_script",
)


#: What an evaluation's output names its task by (the first it holds): EvalOutput's
#: ``instance_id``; in a record with a ``history``, also what OpenDevin's benchmarks of mid-2024
#: wrote instead: ``task_id`` (bird, humanevalfix), ``question_id`` (gorilla), ``qid`` (toolqa),
#: ``test_case_id`` (biocoder), ``id`` (logic_reasoning, mint).
TASK_KEYS = ("instance_id",)


OPENDEVIN_TASK_KEYS = ("task_id", "question_id", "qid", "test_case_id", "id")


#: Where an evaluation's record names its model: V1 benchmarks' ``metadata.llm.model``, V0's
#: EvalMetadata ``metadata.llm_config.model``, OpenDevin's of mid-2024 ``metadata.model_name``,
#: and gorilla's ``model_id``.
_MODEL_PATHS = (
    ("metadata", "llm", "model"),
    ("metadata", "llm_config", "model"),
    ("metadata", "model_name"),
    ("model_id",),
)


def record_model(document: Any) -> str | None:
    """The model an evaluation's record names, a plain identifier (the first of
    :data:`_MODEL_PATHS` that holds one), else None (V1 events, V0 text actions name none)."""
    for path in _MODEL_PATHS:
        value = document
        for key in path:
            value = as_dict(value).get(key)
        if name := identifier(value):
            return name
    return None
