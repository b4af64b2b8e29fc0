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


def test_a_missing_token_does_not_stop_the_plan_but_stops_the_build(project):  # noqa: F811
    write(project, single())
    assert load_stack("dev", project).spec.model.weights_token == "accelfit:hfToken"  # plan, lock read it
    from accelfit.errors import InputError
    from accelfit.preview.run import preview_stack

    try:
        preview_stack("dev", project)
    except InputError as error:
        text = str(error)
    else:
        raise AssertionError("the build ran without the token")
    assert "config.accelfit:hfToken" in text and "pulumi config set --secret accelfit:hfToken" in text


def test_a_plain_text_token_is_refused_without_echoing_it(project):  # noqa: F811
    lines = problems(project, single({"accelfit:hfToken": "hf_plainvalue"}))
    assert any("config.accelfit:hfToken" in line and "plain text" in line for line in lines)
    assert not any("hf_plainvalue" in line for line in lines)


def test_an_encrypted_token_loads(project):  # noqa: F811
    write(project, single({"accelfit:hfToken": {"secure": "v1:abc"}}))
    stack = load_stack("dev", project)
    assert stack.spec.model.weights_token == "accelfit:hfToken"
