"""Agreement statistics (pure functions) and audits of generated data."""
