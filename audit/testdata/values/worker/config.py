from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    api_retry_max_attempts: int = 5
    api_retry_base_delay: float = 1.0


cfg = Config()
