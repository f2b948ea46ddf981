"""The adapter runs abw's shared adapter kit on its own sample: schema, redaction, determinism."""

from pathlib import Path

from abw_example_adapter import StepsImporter

from abw.adapter_kit import AdapterKit

SAMPLES = sorted((Path(__file__).parent.parent / "samples").glob("*.jsonl"))


class TestStepsAdapter(AdapterKit):
    importer = StepsImporter  # or the registered name, "steps-jsonl"
    samples = SAMPLES
