"""
How a process that started an Airflow API server hands it to the pytest sessions it runs: ``scripts/mutation.py``
starts one for a whole mutation run (every mutant's tests run in a session of their own, and a server per session
would cost each mutant the server's start), and the suite's ``airflow_api_server`` fixture then uses it. Apart from
the standard library, this module imports nothing: the mutation script reads it before mutmut imports the provider.
"""

#: The server's URL, and its AIRFLOW_HOME.
RUNNING_URL_ENV = "MESSAGING_PLATFORM_TESTS_AIRFLOW_API_URL"
RUNNING_HOME_ENV = "MESSAGING_PLATFORM_TESTS_AIRFLOW_API_HOME"
