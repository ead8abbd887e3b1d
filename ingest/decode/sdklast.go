package decode

// sdkCalls are, by job, the SDK's latest answered calls that no app line
// has claimed yet: the request ID of each chain's last attempt, as the
// SDK's own lines name it (Node's debug output, `request-id` / `x-request-id`),
// with its model and the line it was read at. An app's own record of a
// call that names no request ID (most apps log `{"job_id", "model",
// "tokens"}` when a call returns) is the SDK's last attempt of that call
// as the app saw it — its usage, not another call — and takes the ID of
// the job's latest such chain of its model. Without it every answered
// call was counted twice when the SDK's debug lines shared the stream
// (red team 8: R8-4, 125 calls for the wire's 69; R8-4c, both SDKs in one
// process without announcements, 79 for 46; R8-32, a retry after a
// timeout).
type sdkCalls struct {
	jobs map[string][]sdkCall
}

type sdkCall struct {
	chain, id, model string
	line             int
	// out is the output tokens the SDK's parsed body gave the call, -1
	// while unknown: an app line of another output count is another call
	// (a raw fetch beside the SDK's; red team R8b-1: every such call
	// swallowed, 27 calls for the wire's 51, exact-looking).
	out int64
}

const (
	// maxSDKCallsPerJob: calls of one job in flight at once whose app
	// line has not come (an agent's parallel tool calls).
	maxSDKCallsPerJob = 8
	// sdkCallLines: an app logs a call as it returns — within this many
	// lines of the SDK's; an older unclaimed chain is not a newer app
	// line's (the app logged that call without its SDK's lines, or not
	// at all).
	sdkCallLines = 2000
)

func (c *sdkCalls) len() int { return len(c.jobs) }

// note records ev's attempt, an SDK line's, as its chain's latest.
func (c *sdkCalls) note(job, chain, id, model string, line int) {
	if c.jobs == nil || len(c.jobs) >= maxAnnounced {
		c.jobs = map[string][]sdkCall{}
	}
	calls := c.jobs[job]
	for i := range calls {
		if chain != "" && calls[i].chain == chain {
			calls[i].id, calls[i].line, calls[i].out = id, line, -1
			if model != "" {
				calls[i].model = model
			}
			return
		}
	}
	if len(calls) >= maxSDKCallsPerJob {
		calls = append(calls[:0], calls[1:]...)
	}
	c.jobs[job] = append(calls, sdkCall{chain: chain, id: id, model: model, line: line, out: -1})
}

// usage records the output tokens the SDK's parsed body gave call id.
func (c *sdkCalls) usage(job, id string, out int64) {
	for i := range c.jobs[job] {
		if c.jobs[job][i].id == id {
			c.jobs[job][i].out = out
			return
		}
	}
}

// claim takes the latest call of job of model (either unknown matches)
// and of out output tokens (when the SDK's body gave them), read within
// sdkCallLines of line.
func (c *sdkCalls) claim(job, model string, out int64, line int) (string, bool) {
	calls := c.jobs[job]
	for i := len(calls) - 1; i >= 0; i-- {
		k := calls[i]
		if line-k.line > sdkCallLines {
			break
		}
		if model != "" && k.model != "" && !sameModel(model, k.model) || k.out >= 0 && k.out != out {
			continue
		}
		c.drop(job, i)
		return k.id, true
	}
	return "", false
}

// forgetID drops the call an app line named by its request ID.
func (c *sdkCalls) forgetID(job, id string) {
	for i, k := range c.jobs[job] {
		if k.id == id {
			c.drop(job, i)
			return
		}
	}
}

func (c *sdkCalls) forget(job string) { delete(c.jobs, job) }

func (c *sdkCalls) drop(job string, i int) {
	calls := append(c.jobs[job][:i], c.jobs[job][i+1:]...)
	if len(calls) == 0 {
		delete(c.jobs, job)
		return
	}
	c.jobs[job] = calls
}
