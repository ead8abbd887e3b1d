# Shapes from rholder/retrying README.rst: a bare @retry, and @retry with
# stop_max_attempt_number and a fixed wait.
from retrying import retry

# @retry(stop_max_attempt_number=99) is only a comment here.


@retry
def fetch_forever():
    """Calls @retry(stop_max_attempt_number=12) in a docstring do not count."""
    raise IOError("broken")


@retry(stop_max_attempt_number=7, wait_fixed=2000)
def fetch_seven_times():
    raise IOError("broken")


@retry(stop_max_delay=10000)
def fetch_for_ten_seconds():
    raise IOError("broken")
