"""Stage 1, the collection: PDF documents with typed metadata, parsed once and kept in the workspace.

- `collection`: `Collection.build(...)` / `Collection.open(...)`, filters by metadata, parsed pages
  and chunks for the later stages;
- `metadata`: reading a metadata table and matching its rows to files (every problem a per-document
  status).
"""

from __future__ import annotations

from mdqa_kernel.collection.collection import (
    BuildStats,
    Collection,
    CollectionNotFoundError,
    DocumentNotFoundError,
)
from mdqa_kernel.collection.metadata import CollectionError, MetadataError, PdfDirError, read_metadata

__all__ = [
    "BuildStats",
    "Collection",
    "CollectionError",
    "CollectionNotFoundError",
    "DocumentNotFoundError",
    "MetadataError",
    "PdfDirError",
    "read_metadata",
]
