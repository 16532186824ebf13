"""Who manages a resource a suggestion would change (issue 25): tags, stacks, conventions."""
