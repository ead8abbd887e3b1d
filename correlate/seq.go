package correlate

// A job's Seq keys what is kept beside it (agentReported, recorded,
// forks, retiredTries) and indexes the synchronized-retries detector's
// dense per-job counts; it must be unique among live jobs and stay small
// (the detector's slice is as long as the largest Seq). So a gone job's
// Seq is given again, once nothing of it is left: its entries in those
// maps are deleted when it goes, and a Seq the detector still counts
// retries of (a trace's job folded within the window) is not given again.

func (s *State) newSeq() int32 {
	if n := len(s.freeSeqs); n > 0 {
		seq := s.freeSeqs[n-1]
		s.freeSeqs = s.freeSeqs[:n-1]
		return seq
	}
	seq := s.nextSeq
	s.nextSeq++
	return seq
}

// freeSeq lets seq go: what was kept by it is dropped, and it is given
// again unless the detector's window still counts it.
func (s *State) freeSeq(seq int32) {
	delete(s.agentReported, seq)
	delete(s.recorded, seq)
	delete(s.forks, seq)
	delete(s.guessed, seq)
	delete(s.retiredTries, seq)
	if s.sync != nil && int(seq) < len(s.sync.perJob) && s.sync.perJob[seq] > 0 {
		return
	}
	s.freeSeqs = append(s.freeSeqs, seq)
}
