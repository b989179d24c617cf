"""kubectl-offsets: list, alter, reset and compute Kafka Connect connector offsets on Strimzi.

Only the version lives here, so that importing the package costs nothing.
"""

__version__ = "0.1.0"
