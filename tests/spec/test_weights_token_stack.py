"""hf:// weights: the token key the spec names must be in the stack, encrypted; the stack file is named in each
problem, and a stack that holds it loads (the key is not an unknown config key)."""

import copy

from test_fleet_stack import DEV, SERVE, load_stack, problems, project, write  # noqa: F401 (fixture)

HF_SERVE = {**copy.deepcopy(SERVE), "model": {"parameters": "8B", "weights": "hf://meta-llama/Llama-3.1-8B-Instruct",
                                               "weights_token": "accelfit:hfToken"}}


def single(extra: dict | None = None) -> dict:
    config = {key: value for key, value in copy.deepcopy(DEV).items() if key != "accelfit:workload"}
    config["accelfit:workload"] = copy.deepcopy(HF_SERVE)
    config.update(extra or {})
    return config


def test_a_missing_token_does_not_stop_the_plan_and_the_offline_preview_says_how_to_set_it(project):  # noqa: F811
    write(project, single())
    assert load_stack("dev", project).spec.model.weights_token == "accelfit:hfToken"  # plan, lock read it
    from accelfit.preview.run import preview_stack

    document = preview_stack("dev", project).document
    assert document["unset_secrets"] == [{"key": "accelfit:hfToken",
                                          "set_with": "pulumi config set --secret accelfit:hfToken hf_..."}]


def test_the_build_stops_without_the_token():
    """Outside the offline preview (pulumi up), an unset token is an input error naming the key and the command."""
    from accelfit.errors import InputError
    from accelfit.planner.model import ServingPlan
    from accelfit.preview.recorder import record
    from components.kubernetes.serving.layer_servers import hf_token
    from components.kubernetes.serving.targets import ServingBuild

    serving = ServingPlan(server="vllm", why="test", weights="hf://org/model", weights_token="accelfit:hfToken",
                          requests_per_second=1, e2e_target_ms=1000, route="test")
    build = ServingBuild(workload="chat", namespace="chat", service_account="chat", create_service_account=False,
                         cloud="gcp", region="us-central1", serving=serving, pools=(), hf_token_key="accelfit:hfToken")
    raised = []

    def program():
        try:
            hf_token(build)
        except InputError as error:
            raised.append(str(error))

    record(program)
    assert raised and "config.accelfit:hfToken" in raised[0] and "pulumi config set --secret" in raised[0]


def test_a_plain_text_token_is_refused_without_echoing_it(project):  # noqa: F811
    lines = problems(project, single({"accelfit:hfToken": "hf_plainvalue"}))
    assert any("config.accelfit:hfToken" in line and "plain text" in line for line in lines)
    assert not any("hf_plainvalue" in line for line in lines)


def test_an_encrypted_token_loads(project):  # noqa: F811
    write(project, single({"accelfit:hfToken": {"secure": "v1:abc"}}))
    stack = load_stack("dev", project)
    assert stack.spec.model.weights_token == "accelfit:hfToken"
