"""abw-latent: hidden-state trajectories of an open-weight model along an agent run.

Advisory evidence only; it never touches hosted models or private reasoning. torch and
transformers are imported only by the modules of this package that need them, and only when a
command runs: importing ``abw.latent`` or :mod:`abw.latent.geometry` loads neither.
"""

from __future__ import annotations

from typing import Any

INSTALL_HINT = "install with pip install 'agent-behavior-workbench[latent]'"


def require_extras() -> tuple[Any, Any]:
    """Import and return ``(torch, transformers)``, or raise AbwInputError saying how to install."""
    from abw.errors import AbwInputError

    try:
        import torch
        import transformers
    except ImportError as exc:
        missing = exc.name or "torch/transformers"
        raise AbwInputError(f"the latent extra is missing ({missing}): {INSTALL_HINT}") from None
    return torch, transformers
