"""Core records, files, errors, redaction and locks: the layer everything else builds on."""
