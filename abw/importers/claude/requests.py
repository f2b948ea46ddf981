"""What an llm span carries about its API request beyond the message: the retries that
preceded it and the model fallback that answered it. Attributes, not spans, so provider
flakiness does not count as the agent's errors."""

from __future__ import annotations

from typing import Any

from abw.importers.claude.drafts import AgentState, Draft, as_int
from abw.importers.common import identifier


def record_retries(llm: Draft, state: AgentState) -> None:
    """Put the API retries that preceded this request on its llm span: ``api_retries`` (how
    many retry records), ``api_retry_max`` (the retry budget), ``api_error_statuses`` (the
    HTTP statuses, in order). The request that finally answered (or failed) is one span; the
    attempts are attributes, so provider flakiness does not count as the agent's errors."""
    if not state.retries:
        return
    llm.attributes["api_retries"] = len(state.retries)
    budgets = [as_int(m) for _, _, m, _ in state.retries if as_int(m) is not None]
    if budgets:
        llm.attributes["api_retry_max"] = budgets[-1]
    statuses = [as_int(c) for _, _, _, c in state.retries if as_int(c) is not None]
    if statuses:
        llm.attributes["api_error_statuses"] = statuses
    state.retries.clear()


def fallback_attributes(refused_model: Any, reason: Any = None) -> dict[str, str]:
    """The attributes of a model call whose first model refused (its safeguards) and that
    another model answered: ``model_fallback_from`` (the model that refused) and
    ``model_fallback_reason`` (``refusal``), each kept only when it is a plain identifier."""
    found = {
        "model_fallback_from": identifier(refused_model),
        "model_fallback_reason": identifier(reason),
    }
    return {key: value for key, value in found.items() if value is not None}
