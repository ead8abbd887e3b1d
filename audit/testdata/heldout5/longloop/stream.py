import time

from anthropic import Anthropic

client = Anthropic()


def stream_answer(messages, model="claude-sonnet-4-5"):
    NUM_RETRIES = 6
    error = None
    for i in range(NUM_RETRIES):
        try:
            text = ""
            state = {"phase": 0, "seen": []}
            with client.messages.stream(model=model, max_tokens=4096, messages=messages) as stream:
                for event in stream:
                    if event.type == "message_start" and state["phase"] == 0:
                        state["phase"] = 1
                        state["seen"].append("message_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_start" and state["phase"] == 1:
                        state["phase"] = 2
                        state["seen"].append("content_block_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_delta" and state["phase"] == 2:
                        state["phase"] = 3
                        state["seen"].append("content_block_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_stop" and state["phase"] == 3:
                        state["phase"] = 4
                        state["seen"].append("content_block_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_delta" and state["phase"] == 4:
                        state["phase"] = 5
                        state["seen"].append("message_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_stop" and state["phase"] == 5:
                        state["phase"] = 6
                        state["seen"].append("message_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "ping" and state["phase"] == 6:
                        state["phase"] = 7
                        state["seen"].append("ping")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "error" and state["phase"] == 7:
                        state["phase"] = 8
                        state["seen"].append("error")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_start" and state["phase"] == 8:
                        state["phase"] = 9
                        state["seen"].append("message_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_start" and state["phase"] == 9:
                        state["phase"] = 10
                        state["seen"].append("content_block_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_delta" and state["phase"] == 10:
                        state["phase"] = 11
                        state["seen"].append("content_block_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_stop" and state["phase"] == 11:
                        state["phase"] = 12
                        state["seen"].append("content_block_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_delta" and state["phase"] == 12:
                        state["phase"] = 13
                        state["seen"].append("message_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_stop" and state["phase"] == 13:
                        state["phase"] = 14
                        state["seen"].append("message_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "ping" and state["phase"] == 14:
                        state["phase"] = 15
                        state["seen"].append("ping")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "error" and state["phase"] == 15:
                        state["phase"] = 16
                        state["seen"].append("error")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_start" and state["phase"] == 16:
                        state["phase"] = 17
                        state["seen"].append("message_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_start" and state["phase"] == 17:
                        state["phase"] = 18
                        state["seen"].append("content_block_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_delta" and state["phase"] == 18:
                        state["phase"] = 19
                        state["seen"].append("content_block_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_stop" and state["phase"] == 19:
                        state["phase"] = 20
                        state["seen"].append("content_block_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_delta" and state["phase"] == 20:
                        state["phase"] = 21
                        state["seen"].append("message_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_stop" and state["phase"] == 21:
                        state["phase"] = 22
                        state["seen"].append("message_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "ping" and state["phase"] == 22:
                        state["phase"] = 23
                        state["seen"].append("ping")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "error" and state["phase"] == 23:
                        state["phase"] = 24
                        state["seen"].append("error")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_start" and state["phase"] == 24:
                        state["phase"] = 25
                        state["seen"].append("message_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_start" and state["phase"] == 25:
                        state["phase"] = 26
                        state["seen"].append("content_block_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_delta" and state["phase"] == 26:
                        state["phase"] = 27
                        state["seen"].append("content_block_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_stop" and state["phase"] == 27:
                        state["phase"] = 28
                        state["seen"].append("content_block_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_delta" and state["phase"] == 28:
                        state["phase"] = 29
                        state["seen"].append("message_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_stop" and state["phase"] == 29:
                        state["phase"] = 30
                        state["seen"].append("message_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "ping" and state["phase"] == 30:
                        state["phase"] = 31
                        state["seen"].append("ping")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "error" and state["phase"] == 31:
                        state["phase"] = 32
                        state["seen"].append("error")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_start" and state["phase"] == 32:
                        state["phase"] = 33
                        state["seen"].append("message_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_start" and state["phase"] == 33:
                        state["phase"] = 34
                        state["seen"].append("content_block_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_delta" and state["phase"] == 34:
                        state["phase"] = 35
                        state["seen"].append("content_block_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_stop" and state["phase"] == 35:
                        state["phase"] = 36
                        state["seen"].append("content_block_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_delta" and state["phase"] == 36:
                        state["phase"] = 37
                        state["seen"].append("message_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_stop" and state["phase"] == 37:
                        state["phase"] = 38
                        state["seen"].append("message_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "ping" and state["phase"] == 38:
                        state["phase"] = 39
                        state["seen"].append("ping")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "error" and state["phase"] == 39:
                        state["phase"] = 40
                        state["seen"].append("error")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_start" and state["phase"] == 40:
                        state["phase"] = 41
                        state["seen"].append("message_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_start" and state["phase"] == 41:
                        state["phase"] = 42
                        state["seen"].append("content_block_start")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_delta" and state["phase"] == 42:
                        state["phase"] = 43
                        state["seen"].append("content_block_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "content_block_stop" and state["phase"] == 43:
                        state["phase"] = 44
                        state["seen"].append("content_block_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_delta" and state["phase"] == 44:
                        state["phase"] = 45
                        state["seen"].append("message_delta")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "message_stop" and state["phase"] == 45:
                        state["phase"] = 46
                        state["seen"].append("message_stop")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "ping" and state["phase"] == 46:
                        state["phase"] = 47
                        state["seen"].append("ping")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
                    elif event.type == "error" and state["phase"] == 47:
                        state["phase"] = 48
                        state["seen"].append("error")
                        text += getattr(getattr(event, "delta", None), "text", "") or ""
            return text
        except Exception as e:
            error = e
            time.sleep(4 * 1.75**i)
    raise RuntimeError(f"no answer after {NUM_RETRIES} tries") from error
