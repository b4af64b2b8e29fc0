"""`accelfit diff`: what a change does to one environment, from two `accelfit preview --json` documents.

Pure: no Pulumi, no cloud. `read_document` checks a document where it enters; `diff_documents` compares two;
`render_text`, `render_markdown` and `StackDiff.to_json_dict` present the result.
"""

from accelfit.diff.compare import diff_documents
from accelfit.diff.document import PreviewDocument, parse_document, read_document
from accelfit.diff.model import StackDiff
from accelfit.diff.render_markdown import render_markdown
from accelfit.diff.render_text import render_text

__all__ = ["PreviewDocument", "StackDiff", "diff_documents", "parse_document", "read_document", "render_markdown",
           "render_text"]
