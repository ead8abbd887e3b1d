"""Settings for the worker, read from the environment."""
import os

OPENAI_MAX_RETRIES = int(os.environ.get("OPENAI_MAX_RETRIES", 8))
