"""Helm release values against the pinned charts' defaults: merged as Helm merges them, and the objects the
templates build from them checked against the API server's validation rules and the chart's values schema.
Pure: it reads preview-document rows and data files, never Pulumi."""
