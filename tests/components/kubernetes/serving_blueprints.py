"""Facts of upstream model-server blueprints, recorded as data with their source, for the conformance test
(test_model_server_conformance.py). Each fact is a path into the rendered object and the blueprint's value; a fact
marked `derived` is one the plan sets (the blueprint's value is its example, not a rule), so only its presence and
type are compared."""

from __future__ import annotations

GKE_INFERENCE_QUICKSTART = {
    "source": "GoogleCloudPlatform/kubernetes-engine-samples ai-ml/infw-gw/examples/getting-started/"
              "vllm-llama3-8b-instruct.yaml @334b9d14e4d038fc2297ded9366e7e020ce86fa5",
    "kind": "Deployment",
    "facts": {
        "spec.template.spec.containers[0].command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
        "spec.template.spec.containers[0].ports[0].containerPort": 8000,
        "spec.template.spec.containers[0].ports[0].name": "http",
        "spec.template.spec.containers[0].ports[0].protocol": "TCP",
        "spec.template.spec.containers[0].livenessProbe.httpGet.path": "/health",
        "spec.template.spec.containers[0].livenessProbe.httpGet.port": "http",
        "spec.template.spec.containers[0].livenessProbe.httpGet.scheme": "HTTP",
        "spec.template.spec.containers[0].readinessProbe.httpGet.path": "/health",
        "spec.template.spec.containers[0].readinessProbe.httpGet.port": "http",
        "spec.template.spec.containers[0].startupProbe.httpGet.path": "/health",
        "spec.template.spec.containers[0].startupProbe.httpGet.port": "http",
        "spec.template.spec.containers[0].lifecycle.preStop.sleep.seconds": 30,
        "spec.template.spec.enableServiceLinks": False,
    },
    # Its probe periods and thresholds (readiness every 1 s, failureThreshold 1; liveness every 1 s, 5) are not
    # followed: VLLM_PRODUCTION_STACK's are. The blueprint's own numbers for these are its example's: the plan
    # decides them here.
    "derived": {
        "spec.template.spec.containers[0].startupProbe.failureThreshold": int,  # blueprint 600: its 10 min guess
        "spec.template.spec.terminationGracePeriodSeconds": int,  # blueprint 130: preStop + its slowest request
        "spec.replicas": int,
    },
    "volumes": {"shm": {"emptyDir": {"medium": "Memory"}}},
    "hf_token_env": "HUGGING_FACE_HUB_TOKEN",
}

# vLLM's production Helm chart: the server's probes (servingEngineSpec.startupProbe / livenessProbe /
# readinessProbe; timeoutSeconds unset there, so Kubernetes' default 1 s).
VLLM_PRODUCTION_STACK = {
    "source": "vllm-project/production-stack helm/values.yaml @a6c01db05f65f556235413ba8dbcfb0c01132fff",
    "facts": {
        "spec.template.spec.containers[0].startupProbe.periodSeconds": 10,
        "spec.template.spec.containers[0].livenessProbe.periodSeconds": 10,
        "spec.template.spec.containers[0].livenessProbe.failureThreshold": 3,
        "spec.template.spec.containers[0].livenessProbe.timeoutSeconds": 1,
        "spec.template.spec.containers[0].readinessProbe.periodSeconds": 5,
        "spec.template.spec.containers[0].readinessProbe.failureThreshold": 3,
        "spec.template.spec.containers[0].readinessProbe.timeoutSeconds": 1,
    },
}

GKE_VLLM_TUTORIAL = {
    "source": "GoogleCloudPlatform/kubernetes-engine-samples ai-ml/llm-serving-gemma/vllm/vllm-3-27b-it.yaml "
              "@3c147d573de7cca4a4d0bc61e8db11edf7ba2be3",
    "flags": ("--model", "--tensor-parallel-size", "--host", "--port", "--gpu-memory-utilization", "--max-model-len",
              "--max-num-seqs"),
    "flag_values": {"--host": "0.0.0.0", "--port": "8000"},
    "service": {"spec.type": "ClusterIP", "spec.ports[0].port": 8000},
}

LWS_VLLM_GPU = {
    "source": "kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml @v0.7.0 (cd3a73a3f5e00cfa9cd2c1c92f00f6189d88073e)",
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "facts": {"spec.leaderWorkerTemplate.restartPolicy": "RecreateGroupOnPodRestart",
              "spec.leaderWorkerTemplate.leaderTemplate.metadata.labels.role": "leader"},
    "leader_command_starts": "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader "
                             "--ray_cluster_size=$(LWS_GROUP_SIZE);",
    "worker_command": "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker "
                      "--ray_address=$(LWS_LEADER_ADDRESS)",
    "leader_flags": ("--tensor-parallel-size", "--pipeline-parallel-size"),
    "service_selector_role": "leader",
}

GCSFUSE_MODEL_SERVING = {
    "source": "GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gcsfuse-shared-cache/vllm-a.yaml "
              "@d230dfb779d993da6d931b6fc2b8d70a87a289f3",
    "pod_annotation": ("gke-gcsfuse/volumes", "true"),
    # GKE's tuned serving Deployment (vllm-openai-gcs-tuned-llama33-70b-a100, GKE docs "load models faster with
    # Cloud Storage FUSE"): the sidecar's limits unset.
    "sidecar_annotations": {"gke-gcsfuse/cpu-limit": "0", "gke-gcsfuse/memory-limit": "0",
                            "gke-gcsfuse/ephemeral-storage-limit": "0"},
    "driver": "gcsfuse.csi.storage.gke.io",
    "read_only": True,
    "mount_options": ("implicit-dirs", "file-cache:enable-parallel-downloads:true",
                      "file-cache:cache-file-for-range-read:false", "file-cache:download-chunk-size-mb:32",
                      "file-cache:max-size-mb:-1", "metadata-cache:stat-cache-max-size-mb:32",
                      "metadata-cache:ttl-secs:3600", "metadata-cache:type-cache-max-size-mb:4"),
}
