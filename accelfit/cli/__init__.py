"""The `accelfit` command line. Commands import heavy modules lazily so `accelfit plan` stays fast."""
