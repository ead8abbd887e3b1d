import anthropic

PROMPT = f"""Summarize {{ the text }} in {n} words"""
label = f"{row["name"]}: {row['score']:>{width}}"


def client():
    return anthropic.Anthropic(max_retries=6)
