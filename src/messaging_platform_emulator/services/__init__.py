"""Business rules of the platform resources, one module per resource family."""
