"""Apache Airflow provider for the Account-Scoped Messaging Platform API v2.1."""

__version__ = "0.1.0"
