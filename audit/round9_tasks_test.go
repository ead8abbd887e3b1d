package audit

import (
	"strings"
	"testing"
)

// Round 9's misses (issue 37): a task redelivered by a count kept in its
// own record. A fixture of our own shape, and its near misses.

const recordCountPy = `import random
from datetime import datetime

from app.db import Job, JobStatus


class JobService:
    @classmethod
    def claim(cls, job_id):
        rows = list(Job.select().where(Job.id == job_id).dicts())
        if not rows:
            return None
        job = rows[0]
        note = f"{datetime.now():%H:%M:%S} picked up"
        if job["attempt_count"] > 4:
            note = "given up after 5 deliveries"
        Job.update(note=note, attempt_count=job["attempt_count"] + 1).where(Job.id == job_id).execute()
        if job["attempt_count"] > 4:
            Job.update(status=JobStatus.FAILED).where(Job.id == job_id).execute()
            return None
        return job

    @classmethod
    def touch(cls, job):
        # counted, never tested: no bound here
        Job.update(retry_count=job.retry_count + 1).where(Job.id == job.id).execute()

    @classmethod
    def report(cls, job):
        if job.retry_count >= 3:
            return "flaky"
        return "ok"
`

func TestTaskRedeliveredByRecordCount(t *testing.T) {
	r := scanTree(t, map[string]string{"api/services/jobs.py": recordCountPy})
	l := layerAt(t, r, "api/services/jobs.py", 15)
	if l.Attempts != 5 || !strings.Contains(l.Note, "attempt_count") {
		t.Errorf("jobs.py:15: %d attempts (%s), want 5: attempt_count > 4, written back one higher", l.Attempts, l.Note)
	}
	noLayerAt(t, r, "api/services/jobs.py", 26, "a count written with no test")
	noLayerAt(t, r, "api/services/jobs.py", 30, "a count tested with no write")
}
