"""``irforge view``: a static HTML explorer of a benchmark folder (opens from disk, no server)."""
