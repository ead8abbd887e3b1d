import subprocess


def stop(process: subprocess.Popen) -> None:
    # Near miss: a process waited for again after a kill is no watchdog.
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def dump(output):
    # Near miss: a serializer's fallback is no retry.
    try:
        output = output.model_dump(mode="json")
    except Exception:
        output = output.model_dump()
    return output


async def ping(client, meta):
    # Near miss: a keyword argument is not an assignment of the result.
    try:
        await client.get_state(store="s", key="__ping__", state_metadata=meta())
        return True
    except Exception:
        await client.save_state(store="s", key="__ping__", value="ok", state_metadata=meta())
        return False
