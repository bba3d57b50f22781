"""libloan: a library loans manager."""
