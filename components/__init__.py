"""Pulumi ComponentResources: the only code that creates resources. `program.run()` is the Pulumi program (one
path for every stack: `build.build_fleet`); `gcp/`, `aws/`, `baremetal/` and `kubernetes/` hold the components,
which check a plan against the cloud rules in `accelfit.cloudrules` before creating anything."""
