"""One module per document layout; each exposes ``build(ctx, writer) -> title``."""
