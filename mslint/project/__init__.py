"""The project model: which files are the project's modules, how imports resolve, who
imports whom, the classes and their bases, module constants, and the names MindSpore
exports.  Built from source text and astroid trees, never by importing the code.
Imports only the core."""
