from agents import Agent, ModelSettings, Runner

faq = Agent(name="FAQ", instructions="Answer from the FAQ.", model="gpt-4.1-mini")
triage = Agent(name="Triage", instructions="Route the question.", handoffs=[faq], model_settings=ModelSettings(temperature=0))


async def answer(question: str) -> str:
    result = await Runner.run(triage, question)
    return result.final_output


class FakeModel:
    pass


probe = Agent(name="Probe", instructions="x", model=FakeModel())
