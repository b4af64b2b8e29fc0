"""`accelfit preflight`: the live quotas, zone offerings, reservations and enabled APIs of the user's own cloud
account, compared with what a stack's plan needs, before `pulumi up`.

Pure parts (no SDK, no network): `rules` (which quota each pool draws on, from sourced data), `needs` (what a plan
needs at full scale and per fallback step), `compare` (needs against what was read) and `render`. The live readers,
`gcp` and `aws`, import the clouds' SDKs (google-cloud-*, boto3; the `preflight` extra) only when called.
"""
