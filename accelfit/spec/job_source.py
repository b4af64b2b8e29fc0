"""Where a GPU VM's job comes from: `training.code` (an archive in a bucket, or a git repository pinned to a
commit) and `training.image` (a container image). Pure: parsing and the rules on the forms, nothing else.

The forms are strict on purpose. The startup script passes every value to gcloud, aws, git, tar and docker as a
quoted argument, never as shell text; the forms below also leave no room for shell syntax in the first place (no
spaces, quotes, `$`, `;`, backticks or globs), so a value that reaches the VM is exactly the one validated here.

- An archive: `gs://BUCKET/PATH.tar.gz` or `s3://BUCKET/KEY.tar.gz` (also `.tgz`, `.tar`), unpacked into the
  job's working directory. Bucket names as in model.weights (GCS and S3 naming rules); object names of letters,
  digits and `. _ - / + = ~`.
- A git repository pinned to a commit: `https://HOST/PATH.git@COMMIT`, COMMIT the full 40-hex commit id (a branch
  or tag moves; a commit does not, so a VM restarted after a preemption runs the same code). Public repositories
  only: the URL carries no credentials (`user@` is refused: a token in the stack file is a leaked secret).
- An image: `[REGISTRY/]PATH:TAG` or `...@sha256:DIGEST` (the distribution/reference grammar of
  github.com/distribution/reference `regexp.go`, simplified to what registries accept), with a tag other than
  `latest` or a digest, so a restart after a preemption pulls the same image.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accelfit.clouds import cloud_of_scheme
from accelfit.errors import short_repr

_GCS_BUCKET = r"[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]"  # cloud.google.com/storage/docs/buckets#naming
_S3_BUCKET = r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]"  # docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
_OBJECT = r"[A-Za-z0-9._+=~-]+(?:/[A-Za-z0-9._+=~-]+)*"
_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar")
_ARCHIVE = {
    "gs": re.compile(rf"gs://(?P<bucket>{_GCS_BUCKET})/(?P<object>{_OBJECT})\Z"),
    "s3": re.compile(rf"s3://(?P<bucket>{_S3_BUCKET})/(?P<object>{_OBJECT})\Z"),
}
_HOST = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+(?::[0-9]{1,5})?"
_GIT = re.compile(rf"(?P<repository>https://{_HOST}/[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)*\.git)"
                  r"@(?P<commit>[0-9a-f]{40})\Z")

# distribution/reference: a domain is a component with a '.' or ':' or exactly "localhost"; path components are
# lowercase alphanumerics joined by '.', '_', '__' or dashes; a tag is [\w][\w.-]{0,127}; a digest sha256:<64 hex>.
_DOMAIN = rf"(?:{_HOST}|localhost(?::[0-9]{{1,5}})?)"
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_IMAGE = re.compile(rf"(?:(?P<domain>{_DOMAIN})/)?(?P<path>{_COMPONENT}(?:/{_COMPONENT})*)"
                    r"(?::(?P<tag>[\w][\w.-]{0,127}))?(?:@(?P<digest>sha256:[0-9a-f]{64}))?\Z")
_IMAGE_MAX = 255  # the reference grammar's NameTotalLengthMax

# Registries that need the VM's cloud identity to pull (others are pulled anonymously): Artifact Registry
# (REGION-docker.pkg.dev, https://cloud.google.com/artifact-registry/docs/docker/authentication) and Container
# Registry hosts (gcr.io) read with the VM's service account; Amazon ECR private registries
# (ACCOUNT.dkr.ecr.REGION.amazonaws.com, https://docs.aws.amazon.com/AmazonECR/latest/userguide/registry_auth.html)
# with the instance role.
_GCP_REGISTRY = re.compile(r"(?:[a-z0-9-]+-docker\.pkg\.dev|(?:[a-z]+\.)?gcr\.io)\Z")
_ECR_REGISTRY = re.compile(r"[0-9]{12}\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.amazonaws\.com\Z")

CODE_FORMS = ("gs://BUCKET/PATH.tar.gz, s3://BUCKET/KEY.tar.gz (also .tgz, .tar) or "
              "https://HOST/PATH.git@<40-hex commit>")
CODE_EXAMPLE = "e.g. gs://acme-ml-jobs/lora-ft/code-v3.tar.gz or https://github.com/acme/lora-ft.git@" + "0" * 40
IMAGE_EXAMPLE = "e.g. nvcr.io/nvidia/pytorch:24.12-py3 or us-docker.pkg.dev/acme-ml/jobs/lora-ft@sha256:<64 hex>"


@dataclass(frozen=True)
class CodeSource:
    kind: str
    """archive or git."""
    scheme: str
    """gs, s3 or git."""
    url: str
    """The archive's URL, or the repository's clone URL (without the commit)."""
    commit: str | None = None
    bucket: str | None = None

    @property
    def cloud(self) -> str | None:
        """The cloud whose identity reads it (a public git repository: none)."""
        found = cloud_of_scheme(self.scheme)  # the cloud record's storage_schemes
        return found.name if found is not None else None


@dataclass(frozen=True)
class ImageRef:
    reference: str
    registry: str
    """The registry host ("docker.io" when the reference names none)."""
    cloud: str | None
    """gcp or aws for a registry read with that cloud's identity; None for a public registry."""
    ecr_region: str | None = None


def parse_code(code: str) -> CodeSource:
    """The code source a well-formed training.code names; ValueError saying which form to use otherwise."""
    scheme = code.partition("://")[0]
    if scheme in _ARCHIVE:
        found = _ARCHIVE[scheme].match(code)
        if found is None:
            raise ValueError(f"code {short_repr(code)} is not a valid {scheme}:// archive location; give {CODE_FORMS} "
                             f"({CODE_EXAMPLE})")
        if not found.group("object").endswith(_ARCHIVE_SUFFIXES):
            raise ValueError(f"code {short_repr(code)}: the archive must be a tar file ({', '.join(_ARCHIVE_SUFFIXES)}), "
                             "which the VM unpacks into the job directory; pack it with `tar -czf code.tar.gz -C "
                             "DIR .`")
        return CodeSource("archive", scheme, code, bucket=found.group("bucket"))
    if scheme == "https":
        found = _GIT.match(code)
        if found is None:
            raise ValueError(f"code {short_repr(code)}: a git repository is given as https://HOST/PATH.git@COMMIT with the "
                             "full 40-character commit id (a branch or tag moves between restarts) and no user or "
                             f"token in the URL (public repositories only); {CODE_EXAMPLE}")
        return CodeSource("git", "git", found.group("repository"), commit=found.group("commit"))
    raise ValueError(f"code {short_repr(code)}: give {CODE_FORMS} ({CODE_EXAMPLE})")


def parse_image(image: str) -> ImageRef:
    """The image a well-formed training.image names; ValueError saying which form to use otherwise."""
    found = _IMAGE.match(image) if len(image) <= _IMAGE_MAX else None
    if found is None:
        raise ValueError(f"image {short_repr(image)} is not a container image reference; give REGISTRY/PATH:TAG or "
                         f"REGISTRY/PATH@sha256:DIGEST ({IMAGE_EXAMPLE})")
    if found.group("digest") is None and found.group("tag") in (None, "latest"):
        raise ValueError(f"image {short_repr(image)} is not pinned, so a VM restarted after a preemption could run "
                         "another image; pin it with a tag other than latest, or a digest (@sha256:...), "
                         f"{IMAGE_EXAMPLE}")
    registry = found.group("domain") or "docker.io"
    host = registry.partition(":")[0]
    ecr = _ECR_REGISTRY.match(host)
    cloud = "gcp" if _GCP_REGISTRY.match(host) else ("aws" if ecr else None)
    return ImageRef(image, registry, cloud, ecr.group("region") if ecr else None)


def job_cloud(code: str | None, image: str | None) -> tuple[str, str] | None:
    """(field, cloud) when the job's code or image can only be read with one cloud's identity."""
    if code is not None and (cloud := parse_code(code).cloud):
        return "code", cloud
    if image is not None and (cloud := parse_image(image).cloud):
        return "image", cloud
    return None
