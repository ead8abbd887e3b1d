import json

from app.llm import ask_llm


def classify(ticket):
    while True:
        prompt = f"""
Classify the support ticket below into one category.

Example 0: a customer writes about order 0 arriving late; the category is shipping.
Example 1: a customer writes about order 1 arriving late; the category is shipping.
Example 2: a customer writes about order 2 arriving late; the category is shipping.
Example 3: a customer writes about order 3 arriving late; the category is shipping.
Example 4: a customer writes about order 4 arriving late; the category is shipping.
Example 5: a customer writes about order 5 arriving late; the category is shipping.
Example 6: a customer writes about order 6 arriving late; the category is shipping.
Example 7: a customer writes about order 7 arriving late; the category is shipping.
Example 8: a customer writes about order 8 arriving late; the category is shipping.
Example 9: a customer writes about order 9 arriving late; the category is shipping.
Example 10: a customer writes about order 10 arriving late; the category is shipping.
Example 11: a customer writes about order 11 arriving late; the category is shipping.
Example 12: a customer writes about order 12 arriving late; the category is shipping.
Example 13: a customer writes about order 13 arriving late; the category is shipping.
Example 14: a customer writes about order 14 arriving late; the category is shipping.
Example 15: a customer writes about order 15 arriving late; the category is shipping.
Example 16: a customer writes about order 16 arriving late; the category is shipping.
Example 17: a customer writes about order 17 arriving late; the category is shipping.
Example 18: a customer writes about order 18 arriving late; the category is shipping.
Example 19: a customer writes about order 19 arriving late; the category is shipping.
Example 20: a customer writes about order 20 arriving late; the category is shipping.
Example 21: a customer writes about order 21 arriving late; the category is shipping.
Example 22: a customer writes about order 22 arriving late; the category is shipping.
Example 23: a customer writes about order 23 arriving late; the category is shipping.
Example 24: a customer writes about order 24 arriving late; the category is shipping.
Example 25: a customer writes about order 25 arriving late; the category is shipping.
Example 26: a customer writes about order 26 arriving late; the category is shipping.
Example 27: a customer writes about order 27 arriving late; the category is shipping.
Example 28: a customer writes about order 28 arriving late; the category is shipping.
Example 29: a customer writes about order 29 arriving late; the category is shipping.
Example 30: a customer writes about order 30 arriving late; the category is shipping.
Example 31: a customer writes about order 31 arriving late; the category is shipping.
Example 32: a customer writes about order 32 arriving late; the category is shipping.
Example 33: a customer writes about order 33 arriving late; the category is shipping.
Example 34: a customer writes about order 34 arriving late; the category is shipping.
Example 35: a customer writes about order 35 arriving late; the category is shipping.
Example 36: a customer writes about order 36 arriving late; the category is shipping.
Example 37: a customer writes about order 37 arriving late; the category is shipping.
Example 38: a customer writes about order 38 arriving late; the category is shipping.
Example 39: a customer writes about order 39 arriving late; the category is shipping.
Example 40: a customer writes about order 40 arriving late; the category is shipping.
Example 41: a customer writes about order 41 arriving late; the category is shipping.
Example 42: a customer writes about order 42 arriving late; the category is shipping.
Example 43: a customer writes about order 43 arriving late; the category is shipping.
Example 44: a customer writes about order 44 arriving late; the category is shipping.
Example 45: a customer writes about order 45 arriving late; the category is shipping.
Example 46: a customer writes about order 46 arriving late; the category is shipping.
Example 47: a customer writes about order 47 arriving late; the category is shipping.
Example 48: a customer writes about order 48 arriving late; the category is shipping.
Example 49: a customer writes about order 49 arriving late; the category is shipping.
Example 50: a customer writes about order 50 arriving late; the category is shipping.
Example 51: a customer writes about order 51 arriving late; the category is shipping.
Example 52: a customer writes about order 52 arriving late; the category is shipping.
Example 53: a customer writes about order 53 arriving late; the category is shipping.
Example 54: a customer writes about order 54 arriving late; the category is shipping.
Example 55: a customer writes about order 55 arriving late; the category is shipping.
Example 56: a customer writes about order 56 arriving late; the category is shipping.
Example 57: a customer writes about order 57 arriving late; the category is shipping.
Example 58: a customer writes about order 58 arriving late; the category is shipping.
Example 59: a customer writes about order 59 arriving late; the category is shipping.
Example 60: a customer writes about order 60 arriving late; the category is shipping.
Example 61: a customer writes about order 61 arriving late; the category is shipping.
Example 62: a customer writes about order 62 arriving late; the category is shipping.
Example 63: a customer writes about order 63 arriving late; the category is shipping.
Example 64: a customer writes about order 64 arriving late; the category is shipping.
Example 65: a customer writes about order 65 arriving late; the category is shipping.
Example 66: a customer writes about order 66 arriving late; the category is shipping.
Example 67: a customer writes about order 67 arriving late; the category is shipping.
Example 68: a customer writes about order 68 arriving late; the category is shipping.
Example 69: a customer writes about order 69 arriving late; the category is shipping.
Example 70: a customer writes about order 70 arriving late; the category is shipping.
Example 71: a customer writes about order 71 arriving late; the category is shipping.
Example 72: a customer writes about order 72 arriving late; the category is shipping.
Example 73: a customer writes about order 73 arriving late; the category is shipping.
Example 74: a customer writes about order 74 arriving late; the category is shipping.
Example 75: a customer writes about order 75 arriving late; the category is shipping.
Example 76: a customer writes about order 76 arriving late; the category is shipping.
Example 77: a customer writes about order 77 arriving late; the category is shipping.
Example 78: a customer writes about order 78 arriving late; the category is shipping.
Example 79: a customer writes about order 79 arriving late; the category is shipping.

Ticket: {ticket}
Answer with JSON: {{"category": "..."}}
"""
        reply = ask_llm(prompt)
        try:
            return json.loads(reply)["category"]
        except (ValueError, KeyError):
            continue
