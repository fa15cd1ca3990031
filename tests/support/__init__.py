"""What the tests share and are not tests themselves: helpers, fixture modules and harnesses, imported as
``tests.support.<module>``."""
