from agent.config import CoderConfig


class Coder:
    def __init__(self, config: CoderConfig, llm):
        self.config = config
        self.llm = llm
        self.retry_count = 0
        self.retries_logged = 0

    def reply(self, turn):
        code = self.llm.generate(turn.messages)
        result = self.execute(code)
        self.retries_logged += 1
        if result.ok:
            self.retry_count = 0
            return turn.answer(result)
        if self.retry_count < self.config.max_retry_count:
            turn.send_to("Coder", "The code failed; fix it:\n" + result.error)
            self.retry_count += 1
        else:
            self.retry_count = 0
        return turn.end()

    def progress(self):
        # near miss: a total of retries, compared with a bound, never reset
        if self.retries_logged < self.config.max_retry_count:
            self.retries_logged += 1

    def verify(self, turn, error):
        # the same budget, tested again where verification fails: one layer
        if self.retry_count < self.config.max_retry_count:
            turn.send_to("Coder", "Verification failed:\n" + error)
            self.retry_count += 1
        else:
            self.retry_count = 0
