# near miss: a class of the project named Together, not the SDK's
from .teams import Together

team = Together(members=["a", "b"])
