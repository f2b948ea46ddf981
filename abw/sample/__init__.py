"""``abw sample``: run the agent, import each run as it finishes, and stop each scenario as soon
as the gate's sequential statistic decides it.

- :mod:`abw.sample.scenarios` reads ``scenarios.yaml``;
- :mod:`abw.sample.runner` runs the agent once (time limit, process group, transcript);
- :mod:`abw.sample.record` imports the transcript with ``abw import`` and writes the trace;
- :mod:`abw.sample.decision` reads a scenario's decision from a gate report;
- :mod:`abw.sample.loop` schedules runs and re-gates after each.
"""
