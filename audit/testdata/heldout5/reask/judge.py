import json

from openai import OpenAI

client = OpenAI(max_retries=1)


class Judge:
    def score(self, messages):
        reply = client.chat.completions.create(model="gpt-4o", messages=messages)
        text = reply.choices[0].message.content
        try:
            verdict = json.loads(text)
        except ValueError:
            verdict = None
        if verdict is None or "score" not in verdict:
            return self.score(messages + [{"role": "user", "content": "Answer in JSON with a score."}])
        return verdict["score"]

    def walk(self, node, depth=0):
        # near miss: a tree, not an answer
        if node.children:
            return self.walk(node.children[0], depth + 1)
        return node

    def rescore(self, messages, tries=2):
        # near miss: a count passed on
        verdict = self.score(messages)
        if verdict is None and tries:
            return self.rescore(messages, tries - 1)
        return verdict

    def classify(self, messages):
        reply = client.chat.completions.create(model="gpt-4o", messages=messages)
        label = reply.choices[0].message.content.strip()
        if label in ("yes", "no"):
            return label
        else:
            return self.classify(messages + [{"role": "user", "content": "Answer yes or no."}])

    def render(self, node):
        # near miss: an else that walks on, the conversation not extended
        if node.leaf:
            return node.text
        else:
            return self.render(node.children[0])
