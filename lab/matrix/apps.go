package matrix

// App is one of the lab's apps: a program on the real SDKs that calls the
// mock provider and logs as such an app does.
type App struct {
	Name string
	// Interp runs Script (relative to the repository root).
	Interp string
	Script string
	// Redis: the app needs the lab's Redis (BullMQ).
	Redis bool
	// SDKLogEnv turns the SDK's debug output on.
	SDKLogEnv string
	// SDKOnStderr: the SDK's lines go to stderr (Python's logging).
	SDKOnStderr bool
	Loggings    []Logging
	// Jobs is how many jobs a night of this app runs.
	Jobs func(seed uint64) int
}

// Apps are the lab's apps; the first is seed 000's stack.
var Apps = []App{
	{Name: "anthropic-pretry-bullmq", Interp: "node", Script: "lab/node/report-batch.mjs", Redis: true,
		SDKLogEnv: "ANTHROPIC_LOG=debug", Loggings: Loggings,
		Jobs: func(seed uint64) int {
			if seed == 0 {
				return 22 // seed 000's night
			}
			return 30
		}},
	{Name: "openai-chat-stream", Interp: "node", Script: "lab/node/summarize.mjs",
		SDKLogEnv: "OPENAI_LOG=debug", Loggings: []Logging{AppJSON, SDKDebug, BothStream, BothFiles, OTLP},
		Jobs: func(uint64) int { return 30 }},
	{Name: "python-asyncio-tenacity", Interp: "/usr/bin/python3", Script: "lab/python/batch.py",
		SDKLogEnv: "ANTHROPIC_LOG=debug", SDKOnStderr: true, Loggings: []Logging{AppJSON, SDKDebug, BothStream, BothFiles},
		Jobs: func(uint64) int { return 30 }},
}

func appNamed(name string) (App, bool) {
	for _, a := range Apps {
		if a.Name == name {
			return a, true
		}
	}
	return App{}, false
}
