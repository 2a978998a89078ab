"""One run over files: discovery, the checks over each module (the engine), the result
cache, time budgets, and routing findings to the file where the user sees them.
Imports the analysis, the project model and the core (the checkers through the rule
registry); never a reporter, a fix or a front-end."""
