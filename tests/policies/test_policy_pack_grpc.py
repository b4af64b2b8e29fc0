"""The real pack (`python policies/__main__.py`) over the analyzer gRPC interface agrees with the runner."""

from __future__ import annotations

from bad_stack import bad_resources
from policy_resources import GOLDEN_FILES, config, golden

from policies.accelfit_policies import PACK_NAME, all_policies
from policies.analyzer_client import PackProcess
from policies.runner import run_policies


def key(violation):
    return (violation.policy, violation.level, violation.urn, violation.message)


def test_real_pack_over_grpc_matches_the_in_process_runner():
    # Real pricing on both sides; the bad stack plus one golden example exercise resource and stack rules.
    resources = bad_resources() + golden(GOLDEN_FILES[0])
    with PackProcess() as pack:  # one spawn for every check here (~0.5 s)
        info = pack.info()
        assert info.name == PACK_NAME
        assert [policy.name for policy in info.policies] == [policy.name for policy in all_policies()]
        for env in ("prod", "dev"):
            over_grpc = pack.analyze(resources, config(env))
            in_process = run_policies(resources, config(env))
            assert sorted(map(key, over_grpc)) == sorted(map(key, in_process)), env
            assert over_grpc, env
