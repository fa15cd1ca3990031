"""HTTP routes: thin adapters from requests to the services and control objects."""
