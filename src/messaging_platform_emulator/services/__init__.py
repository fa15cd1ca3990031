"""Business rules of the platform resources, one module per resource family.

Each service is built by ``Emulator`` with the store and, as constructor arguments, the other services it uses.
"""
