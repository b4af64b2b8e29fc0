"""The model server's S3 read policy is built from the parsed location, every user character a literal (issue 36
item 3): `*` and `?` are IAM wildcards and `${...}` a policy variable in Resource and StringLike values, written
literally as ${*}, ${?} and ${$} (IAM User Guide, policy variables, special characters:
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html#policy-vars-specialchars).
The evaluator below follows those documented rules, so a test asks IAM's question: which keys does this grant?"""

from __future__ import annotations

import json
import re

import pytest

from components.aws.iam_documents import iam_literal, weights_read_policy

_VARIABLE = re.compile(r"\$\{([^}]*)\}")


def iam_matches(pattern: str, text: str) -> bool:
    """StringLike / Resource matching: * any run, ? one character, ${*} ${?} ${$} the literal characters; any
    other ${...} is a policy variable (here resolved to a value no key holds, as an unknown principal's would be)."""
    regex, index = [], 0
    while index < len(pattern):
        variable = _VARIABLE.match(pattern, index)
        if variable:
            name = variable.group(1)
            regex.append(re.escape(name) if name in ("*", "?", "$") else "\0VARIABLE\0")
            index = variable.end()
            continue
        char = pattern[index]
        regex.append(".*" if char == "*" else "." if char == "?" else re.escape(char))
        index += 1
    return re.fullmatch("".join(regex), text, re.S) is not None


def granted(weights: str, key: str) -> bool:
    """Whether the policy lets the role read object `key` of the weights' bucket."""
    statements = json.loads(weights_read_policy(weights))["Statement"]
    read = next(statement for statement in statements if statement["Sid"] == "ReadWeights")
    bucket = weights.removeprefix("s3://").split("/", 1)[0]
    return iam_matches(read["Resource"], f"arn:aws:s3:::{bucket}/{key}")


def listed(weights: str, prefix: str) -> bool:
    statements = json.loads(weights_read_policy(weights))["Statement"]
    listing = next(statement for statement in statements if statement["Sid"] == "ListWeights")
    patterns = listing.get("Condition", {}).get("StringLike", {}).get("s3:prefix", ["*"])
    return any(iam_matches(pattern, prefix) for pattern in patterns)


def test_the_evaluator_follows_the_documented_wildcards():
    assert iam_matches("a*", "abc") and iam_matches("a?c", "abc") and not iam_matches("a?c", "ac")
    assert iam_matches("a${*}", "a*") and not iam_matches("a${*}", "ab")
    assert not iam_matches("${aws:username}/x", "alice/x")


@pytest.mark.parametrize("weights, inside, outside", [
    ("s3://models/team-a*", "team-a*/model.safetensors", "team-ab/model.safetensors"),
    ("s3://models/*", "*/model.safetensors", "other-team/model.safetensors"),
    ("s3://models/llama?", "llama?/x", "llamaX/x"),
    ("s3://models/${aws:username}", "${aws:username}/x", "alice/x"),
    ("s3://models/x$y", "x$y/config.json", "xzy/config.json"),
    ("s3://models/llama-3.1-8b", "llama-3.1-8b/config.json", "llama-3.1-8b-other/config.json"),
])
def test_a_prefix_grants_itself_and_nothing_else(weights, inside, outside):
    assert granted(weights, inside) and not granted(weights, outside)
    folder = inside.split("/", 1)[0]
    assert listed(weights, folder) and listed(weights, f"{folder}/sub") and not listed(weights, outside.split("/")[0])


def test_the_whole_bucket_is_granted_only_when_the_location_names_the_bucket():
    assert granted("s3://models", "anything/at/all")
    assert not granted("s3://models/*", "anything/at/all")


def test_the_escape_is_one_pass():
    assert iam_literal("a*b?c$d${e}") == "a${*}b${?}c${$}d${$}{e}"
