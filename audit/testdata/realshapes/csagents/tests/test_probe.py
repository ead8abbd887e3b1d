from agents import Agent

from .fakes import FakeModel


def test_probe():
    agent = Agent(name="Probe", instructions="x", model=FakeModel())
    assert agent.name == "Probe"
