import re

from helpers import chat_llm, poll_lock

DESCRIPTION = r"<description>\n(.*?)\n</description>"
MAX_REVIEW_RETRIES = 2


def describe(diff):
    # asks up to three times for an answer in the tags
    for attempt in (0, 1, 2):
        reply = chat_llm("Describe this change:\n" + diff)
        found = re.search(DESCRIPTION, reply, re.DOTALL)
        if found is not None:
            return found.group(1)
    return ""


async def review(convo, hunks):
    answer = await chat_llm(convo)

    for i in range(MAX_REVIEW_RETRIES):
        if len(answer.hunks) == len(hunks):
            break
        convo.append({"role": "user", "content": "Review every hunk."})
        answer = await chat_llm(convo)
    return answer


def take_lock(path):
    # near miss: tries that call no model
    for attempt in range(3):
        if poll_lock(path):
            return True
    return False


def summarize_each(items):
    # near miss: a loop over items, not over tries
    out = []
    for i in range(len(items)):
        out.append(chat_llm(items[i]))
    return out
