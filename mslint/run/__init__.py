"""One run over files: discovery, the checks over each module (the engine), the result
cache, time budgets, and routing findings to the file where the user sees them.
Imports the checkers, the analysis, the project model and the core; never a reporter or
a front-end."""
