from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from .activities import generate_report, notify


@workflow.defn
class ReportWorkflow:
    @workflow.run
    async def run(self, session_id: str) -> str:
        report = await workflow.execute_activity(
            generate_report,
            session_id,
            start_to_close_timeout=timedelta(minutes=10),
        )
        await workflow.execute_activity(
            notify,
            report,
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=3),
        )
        return report
