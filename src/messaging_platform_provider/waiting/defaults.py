"""
The defaults of a wait on schedules: which ProcessStatus values end it and how many transient errors in a row it
tolerates. Operators and sensors name them in their signatures, so this module imports nothing: a DAG file that
imports them does not load the decision machinery (``decision``), which only a running wait needs.
"""

#: every ProcessStatus the platform documents for a schedule
PROCESS_STATUSES = ("Pending", "Processing", "Completed", "Aborted", "Failed")
DEFAULT_SUCCESS = ("Completed",)
DEFAULT_FAILURE = ("Failed", "Aborted")
DEFAULT_MAX_TRANSIENT_ERRORS = 5
