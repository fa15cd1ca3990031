"""
What every task of the provider shares, operators and sensors alike: the type of a templated parameter
(``templated.py``), how an error that a retry cannot change fails the task (``errors.py``) and the retry policy
users give their own tasks (``retry_policy.py``), and what a task keeps between its tries and its run-scoped token
(``state.py``).
"""
