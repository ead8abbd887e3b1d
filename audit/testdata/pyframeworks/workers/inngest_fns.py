# Shapes from inngest/inngest-py examples/*/src/inngest/functions.py: a
# function with no retries (the server's default) and one with retries=.
import inngest

from .client import inngest_client


@inngest_client.create_function(
    fn_id="hello-world",
    trigger=inngest.TriggerEvent(event="say-hello"),
)
async def hello(ctx: inngest.Context) -> str:
    return "Hello world!"


@inngest_client.create_function(fn_id="summarise", trigger=inngest.TriggerEvent(event="doc"), retries=1)
async def summarise(ctx: inngest.Context) -> str:
    return "done"
