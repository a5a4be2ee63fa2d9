"""The quiz: the session state machine, its events and commands, the plan, timing."""
