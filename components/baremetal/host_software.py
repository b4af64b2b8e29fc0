"""What host preparation installs: moved to accelfit.cloudrules.baremetal.host_software (with its data), so that
`accelfit check` runs the bare-metal plan checks the build runs. Re-exported for the builders that read it here."""

from accelfit.cloudrules.baremetal.host_software import (  # noqa: F401
    DATA, Fabric, Repository, driver_branch, driver_problems, fabric, form_factor_problems, host_packages,
    repositories, supported_os, toolkit_problems, words,
)
