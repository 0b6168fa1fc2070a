"""The `railbird` command line and the process settings it builds."""
