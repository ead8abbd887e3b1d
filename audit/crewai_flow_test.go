package audit

import "testing"

// Issue 37: a CrewAI Flow whose router sends the flow back to the method
// it followed, bounded by a retry counter. Written for this test.

const crewFlowPy = `from crewai.flow.flow import Flow, listen, router, start
from pydantic import BaseModel

from poems.crews import DraftCrew, CriticCrew

MAX_REDRAFTS = 2


class PoemState(BaseModel):
    draft: str = ""
    attempts: int = 0
    ok: bool = False


class PoemFlow(Flow[PoemState]):

    @start("redraft")
    def write(self):
        self.state.draft = DraftCrew().crew().kickoff(inputs={}).raw

    @router(write)
    def judge(self):
        self.state.attempts += 1
        verdict = CriticCrew().crew().kickoff(inputs={"draft": self.state.draft})
        if self.state.attempts <= MAX_REDRAFTS and not verdict["ok"]:
            return "redraft"
        return "done"

    @listen("done")
    def publish(self):
        print(self.state.draft)


class ReviewFlow(Flow[PoemState]):

    @start()
    def score(self):
        self.state.draft = DraftCrew().crew().kickoff(inputs={}).raw

    @router(score)
    def ask_human(self):
        choice = input("again? ")
        if choice == "y":
            return "score_again"
        return "finish"

    @listen("score_again")
    def rescore(self):
        self.score()

    @listen("finish")
    def finish(self):
        pass


class HaikuFlow(Flow[PoemState]):

    @start("again")
    def compose(self):
        self.state.draft = DraftCrew().crew().kickoff(inputs={}).raw

    @router(compose)
    def check(self):
        if self.state.attempts >= 2:
            return "give_up"
        self.state.attempts += 1
        return "again"
`

func TestCrewAIFlowRouterLoop(t *testing.T) {
	var got []Layer
	for _, l := range scanPython("flows/poems/main.py", []byte(crewFlowPy)) {
		if l.DefaultID == "hand-rolled" {
			got = append(got, l)
		}
	}
	// judge counts first, then tests attempts <= 2 and sends "redraft",
	// which starts write: runs with attempts 1, 2 go round, 3 leaves — 3
	// runs of write. ReviewFlow's router asks a human and counts nothing.
	// HaikuFlow tests attempts >= 2 before counting: compose runs 3 times
	// (the label that goes round is after the if, not in it).
	if g, want := layerList(got), "21 3,62 3"; g != want {
		t.Fatalf("layers %q, want %q", g, want)
	}
}
