"""The accelfit policy pack, as `pulumi preview --policy-pack policies` loads it.

Only assembles the pack: constructing `PolicyPack` starts the analyzer server and never returns, so nothing
imports this module (tests and `accelfit preview` use `policies.runner`). The CLI runs this file with the pack
directory as the program directory, so the rules package beside it is put on the path first.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pulumi_policy import EnforcementLevel, PolicyPack

from accelfit_policies import PACK_NAME, all_policies

PolicyPack(name=PACK_NAME, policies=all_policies(), enforcement_level=EnforcementLevel.ADVISORY)
