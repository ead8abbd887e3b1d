import time

from openai import OpenAI, APIError, RateLimitError

RETRY_TIMEOUT = 60

client = OpenAI(max_retries=0)


def send(messages):
    return client.chat.completions.create(model="gpt-4o", messages=messages)


def send_with_retries(messages):
    retry_delay = 0.125
    while True:
        try:
            return send(messages)
        except (APIError, RateLimitError) as err:
            print(err)
            retry_delay *= 2
            if retry_delay > RETRY_TIMEOUT:
                return None
            print(f"Retrying in {retry_delay:.1f} seconds...")
            time.sleep(retry_delay)


def wait_for_batch(batch_id):
    # near miss: a poll that backs off, no try: nothing is sent again
    delay = 1.0
    while True:
        batch = client.batches.retrieve(batch_id)
        if batch.status == "completed":
            return batch
        time.sleep(delay)
        delay *= 2
        if delay > 300:
            raise TimeoutError(batch_id)
