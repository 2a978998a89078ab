"""The analysis of one module: graph scope (what MindSpore compiles and how it is
reached), the value lattice and its interpreter, instances built in `__init__`, literal
values, and the per-module context the rules read.  Imports the project model and the
core; never a checker."""
