from celery import Celery

from .llm import summarise

app = Celery("reports", broker="redis://localhost:6379/0")


@app.task(bind=True, autoretry_for=(Exception,), retry_backoff=True)
def build_report(self, session_id: str) -> None:
    summarise(session_id)


@app.task
def cleanup() -> None:
    pass
