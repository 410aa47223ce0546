"""Human-in-the-loop rounds in Label Studio: push samples, pull and adjudicate labels."""
