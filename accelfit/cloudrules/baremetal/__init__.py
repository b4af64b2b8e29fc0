"""Bare-metal rules and their sourced data (data/host_packages.yaml), pure: see accelfit.cloudrules."""
