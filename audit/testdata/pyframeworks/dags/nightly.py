# Shapes from apache/airflow airflow-core/docs tutorial (default_args with
# retries and retry_delay), an operator's own retries=, and @task(retries=0).
from datetime import datetime, timedelta

from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, task

default_args = {
    "owner": "data",
    "retries": 2,  # "retries": 9 in a comment is not a setting
    "retry_delay": timedelta(minutes=5),
}


def summarise():
    pass


with DAG("nightly_summaries", default_args=default_args, start_date=datetime(2026, 1, 1), schedule="@daily"):
    summarise_task = PythonOperator(task_id="summarise", python_callable=summarise, retries=5)

    @task(retries=0)
    def publish():
        retries = 7  # a local variable, not a setting
        return retries
