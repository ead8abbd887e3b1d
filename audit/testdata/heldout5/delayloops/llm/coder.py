import time

from openai import APIError

from llm.models import RETRY_TIMEOUT, send


class Coder:
    def reply(self, messages):
        retry_delay = 0.5
        self.partial = ""
        try:
            while True:
                try:
                    self.partial = send(messages)
                    break
                except APIError as err:
                    should_retry = True
                    retry_delay = retry_delay * 2
                    if retry_delay >= RETRY_TIMEOUT:
                        should_retry = False
                    if not should_retry:
                        break
                    print(err)
                    time.sleep(retry_delay)
                    continue
        except KeyboardInterrupt:
            return None
        return self.partial
