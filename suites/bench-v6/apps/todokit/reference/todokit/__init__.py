"""todokit: a small to-do list kept in a JSON file."""
