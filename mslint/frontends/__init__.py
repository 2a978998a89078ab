"""Front-ends: the ways users meet mslint (the `mslint` command, the pylint plugin, the
language server) and what only they need (progress on a terminal, LSP conversions).
The top layer: it may import every other layer; nothing imports it."""
