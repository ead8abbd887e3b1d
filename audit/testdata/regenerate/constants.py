from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    # "Please continue" nudges before giving up on an empty turn.
    empty_response_retry_max: int = 3


cfg = Config()
