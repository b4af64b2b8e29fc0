"""Orderings the clouds require between the resources of one stack, checked over a preview document's recorded
dependencies (accelfit/ordering/check.py; the rules and their sources: data/ordering_rules.yaml). Pure: it reads
the document's rows, never Pulumi."""
