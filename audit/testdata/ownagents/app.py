from agents import Agent

bot = Agent("local")
