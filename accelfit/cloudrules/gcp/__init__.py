"""Google Cloud rules and their sourced data (data/), pure: see accelfit.cloudrules."""
