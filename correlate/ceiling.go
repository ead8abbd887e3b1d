package correlate

// JobCeilings is the per-job spend limit: one for every job, overridden per
// job type. The job_ceiling rule and the dashboard's red rows both ask
// Over, so the table and the kill can never disagree.
type JobCeilings struct {
	Default Pico
	ByType  map[string]Pico
}

// For is the ceiling of a job of type jobType; 0 means none.
func (c JobCeilings) For(jobType string) Pico {
	if v, ok := c.ByType[jobType]; ok {
		return v
	}
	return c.Default
}

// Over reports whether a job of type jobType that spent spend is at or over
// its ceiling.
func (c JobCeilings) Over(jobType string, spend Pico) bool {
	limit := c.For(jobType)
	return limit > 0 && spend >= limit
}
