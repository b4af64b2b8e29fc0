"""The model server an inference plan builds (issue 26): vLLM per serving pool, from the plan's serving section."""
