import json

from app.llm import gpt_call


def plan(task):
    while True:
        reply = gpt_call(f"Break {task} into steps, as JSON")
        try:
            steps = json.loads(reply)
            if isinstance(steps, list):
                return steps
            raise ValueError("not a list")
        except Exception:
            # The model wrote something that is not JSON: ask again.
            continue


def ask_number():
    # Not a model call: a prompt for the user, asked until it parses.
    while True:
        text = input("how many? ")
        try:
            return int(text)
        except ValueError:
            continue


def plan_or_give_up(task):
    # Gives up on a bad answer: not a retry.
    while True:
        reply = gpt_call(task)
        try:
            return json.loads(reply)
        except json.JSONDecodeError:
            break
