"""Security rules: passing and failing case each, called directly."""

from __future__ import annotations

from policy_resources import (
    aws,
    edit,
    gcs_bucket,
    gke_cluster,
    gke_gpu_pool,
    iap_firewall,
    resource_args,
    stack_args,
    tpu_vm,
    violations,
)

from policies.accelfit_policies import security


def test_public_ips_pass_for_private_pools_and_tpu_vms():
    for resource in (gke_gpu_pool(), tpu_vm(), aws("llm-pretrain-pool-gpu-lt")):
        assert violations(security.no_public_ips_policy(), resource_args(resource)) == []


def test_public_ips_fail_for_public_gpu_nodes_and_tpu_vms():
    pool = edit(gke_gpu_pool(), lambda p: p.update(networkConfig={"enablePrivateNodes": False}))
    vm = edit(tpu_vm(), lambda p: p["networkConfig"].update(enableExternalIps=True))
    [pool_message] = violations(security.no_public_ips_policy(), resource_args(pool))
    [vm_message] = violations(security.no_public_ips_policy(), resource_args(vm))
    assert "enablePrivateNodes" in pool_message and "llm-train-gpu-pool" in pool_message
    assert "enableExternalIps: false" in vm_message


def test_private_control_plane_passes_and_fails():
    assert violations(security.private_control_plane_policy(), resource_args(gke_cluster())) == []
    assert violations(security.private_control_plane_policy(), resource_args(aws("llm-pretrain-cluster-eks"))) == []
    public = edit(aws("llm-pretrain-cluster-eks"), lambda p: p["vpcConfig"].update(
        endpointPublicAccess=True, publicAccessCidrs=["0.0.0.0/0"]))
    [message] = violations(security.private_control_plane_policy(), resource_args(public))
    assert "0.0.0.0/0" in message and "publicAccessCidrs" in message


def test_ssh_through_iap_only_passes():
    assert violations(security.no_ssh_policy(), resource_args(iap_firewall())) == []


def test_ssh_from_the_world_fails_on_gcp_and_aws():
    firewall = edit(iap_firewall(), lambda p: p.update(sourceRanges=["0.0.0.0/0"]))
    [gcp_message] = violations(security.no_ssh_policy(), resource_args(firewall))
    assert "port(s) 22" in gcp_message and "0.0.0.0/0" in gcp_message
    group = edit(aws("llm-pretrain-network-nodes-sg"), lambda p: p.setdefault("ingress", []).append(
        {"protocol": "tcp", "fromPort": 0, "toPort": 1024, "cidrBlocks": ["0.0.0.0/0"]}))
    assert violations(security.no_ssh_policy(), resource_args(group))


def test_imdsv2_passes_and_fails():
    template = aws("llm-pretrain-pool-gpu-lt")
    assert violations(security.imdsv2_policy(), resource_args(template)) == []
    optional = edit(template, lambda p: p["metadataOptions"].update(httpTokens="optional"))
    [message] = violations(security.imdsv2_policy(), resource_args(optional))
    assert "optional" in message and "required" in message
    hops = edit(template, lambda p: p["metadataOptions"].update(httpPutResponseHopLimit=3))
    [hop_message] = violations(security.imdsv2_policy(), resource_args(hops))
    assert "hop limit 3" in hop_message and "at most 2" in hop_message


def test_private_buckets_pass_and_fail():
    assert violations(security.private_buckets_policy(), resource_args(gcs_bucket())) == []
    assert violations(security.private_buckets_policy(), resource_args(aws("llm-pretrain-data-public-access"))) == []
    public = edit(gcs_bucket(), lambda p: p.update(publicAccessPrevention="inherited"))
    [message] = violations(security.private_buckets_policy(), resource_args(public))
    assert "inherited" in message and "enforced" in message
    block = edit(aws("llm-pretrain-data-public-access"), lambda p: p.update(restrictPublicBuckets=False))
    [block_message] = violations(security.private_buckets_policy(), resource_args(block))
    assert "restrictPublicBuckets" in block_message


def test_s3_safeguards_pass_with_companions_and_fail_without():
    bucket = aws("llm-pretrain-data-bucket")
    companions = [aws("llm-pretrain-data-public-access"), aws("llm-pretrain-data-encryption")]
    assert violations(security.s3_safeguards_policy(), stack_args([bucket, *companions])) == []
    [message] = violations(security.s3_safeguards_policy(), stack_args([bucket, companions[1]]))
    assert "BucketPublicAccessBlock" in message


def test_encryption_passes_and_fails():
    template = aws("llm-pretrain-pool-gpu-lt")
    for resource in (template, aws("llm-pretrain-cluster-eks"), aws("llm-pretrain-data-encryption")):
        assert violations(security.encryption_policy(), resource_args(resource)) == []
    plain = edit(template, lambda p: p["blockDeviceMappings"][0]["ebs"].update(encrypted="false"))
    [message] = violations(security.encryption_policy(), resource_args(plain))
    assert "/dev/xvda" in message
    no_secrets = edit(aws("llm-pretrain-cluster-eks"), lambda p: p.pop("encryptionConfig"))
    assert violations(security.encryption_policy(), resource_args(no_secrets))


def _gpu_vm(stack: str, name: str):
    from policy_resources import golden_named

    return golden_named(stack, name)


def test_gpu_vms_as_built_pass_public_ip_imds_and_encryption_rules():
    gce = _gpu_vm("example-gcp-lora-vm", "lora-ft-gpu-template")  # the template its managed instance group runs
    ec2 = _gpu_vm("example-aws-lora-vm", "lora-ft-gpu-vm")
    for policy in (security.no_public_ips_policy(), security.imdsv2_policy(), security.encryption_policy()):
        assert violations(policy, resource_args(gce)) == []
        assert violations(policy, resource_args(ec2)) == []


def test_gce_vm_with_an_external_ip_fails():
    vm = edit(_gpu_vm("example-gcp-lora-vm", "lora-ft-gpu-template"),
              lambda p: p["networkInterfaces"][0].update(accessConfigs=[{"networkTier": "PREMIUM"}]))
    [message] = violations(security.no_public_ips_policy(), resource_args(vm))
    assert "lora-ft-gpu-template" in message and "accessConfigs" in message and "IAP" in message


def test_ec2_vm_with_a_public_ip_imdsv1_or_plain_root_volume_fails():
    base = _gpu_vm("example-aws-lora-vm", "lora-ft-gpu-vm")
    public = edit(base, lambda p: p.update(associatePublicIpAddress=True))
    imdsv1 = edit(base, lambda p: p["metadataOptions"].update(httpTokens="optional"))
    plain = edit(base, lambda p: p["rootBlockDevice"].update(encrypted=False))
    [public_message] = violations(security.no_public_ips_policy(), resource_args(public))
    [imds_message] = violations(security.imdsv2_policy(), resource_args(imdsv1))
    [plain_message] = violations(security.encryption_policy(), resource_args(plain))
    assert "associatePublicIpAddress" in public_message and "Session Manager" in public_message
    assert "httpTokens is optional" in imds_message
    assert "rootBlockDevice" in plain_message
