import time

import backoff
from git import GitCommandError
from openai import OpenAI, RateLimitError

client = OpenAI(max_retries=0)


def write_text(path, content, max_retries=5, delay=0.1):
    # a file held by another process: wait and write again
    for attempt in range(max_retries):
        try:
            with open(path, "w") as f:
                f.write(content)
            return
        except PermissionError:
            time.sleep(delay)
            delay *= 2
        except OSError:
            raise


@backoff.on_exception(backoff.expo, GitCommandError, max_tries=2)
def push(repo):
    repo.git.push()


# near misses: the same shapes around a model call are layers
def ask(prompt, max_retries=4):
    for attempt in range(max_retries):
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except (RateLimitError, OSError):
            time.sleep(2)


@backoff.on_exception(backoff.expo, (GitCommandError, RateLimitError), max_tries=3)
def ask_and_commit(repo, prompt):
    repo.index.commit(ask(prompt))
