"""
Waiting on action schedules, in one place, for the sensor, the trigger and the create-and-wait operators:

- ``defaults``: the statuses that end a wait and the transient errors it tolerates, as the operators' and sensors'
  parameters name them. Imports nothing: they name these in their signatures without loading ``decision``.
- ``decision``: judging each poll and the whole wait (``decide``, ``Watch``, the verdicts). No Airflow import.
- ``deadline``: the absolute deadline of a wait, and pauses that never run past it. No Airflow import.
- ``sync_loop``: the polling loop of a worker (the sensor's poke, the operators' ``deferrable=False`` wait).
- ``async_loop``: the polling loop of the trigger, in the triggerer's event loop.
- ``outcome``: the verdict (or the trigger's event) turned into the task's outcome; needs Airflow.
- ``completion``: the ``wait_for_completion`` option of the create operators; needs Airflow.

This file imports nothing, so that the trigger, which imports ``decision`` and ``async_loop`` on the triggerer's
event loop, loads only those.
"""
