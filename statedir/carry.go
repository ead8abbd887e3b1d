package statedir

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/config"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/statedir/flock"
)

// The carry file keeps, beside the journal, what a watch fed by inputs
// that cannot be read again (OTLP, stdin, files followed from their end)
// would lose at a restart: each open run's totals and its jobs' spend and
// calls (engine.CarriedRun). A file read from the start is not carried: a
// restart reads it again, and carrying it too would count it twice.
//
// It is written whole to a temporary file, synced and renamed over the
// last (a reader never sees half of one), at a stop and every
// --carry-interval while events arrive; a process killed without a stop
// loses the log spend of at most that interval. A carry that is torn,
// corrupt, too large, a symlink or not a regular file is said on stderr
// and ignored: the run then begins at $0, as it did before carries.

// carryVersion is the format's version, in the first line.
const carryVersion = 1

// Bounds on what a carry holds and what is read back.
const (
	MaxCarryJobs  = 200_000
	maxCarryRuns  = 64 // engine's maxOpenRuns
	maxCarryBytes = 64 << 20
	maxCarryLine  = 256 << 10
	// maxCarryStatuses bounds a run's statuses (HTTP statuses are three
	// digits; a hostile log's are int16).
	maxCarryStatuses = 1024
	// maxCarryDecls bounds the declarations of all runs (correlate keeps
	// at most 1,024 a run).
	maxCarryDecls = 64 * 1024
)

// CarryPath is the carry file of a journal: "journal.jsonl" →
// "journal.carry.jsonl" in the same directory, owned by the process that
// holds that journal's carry lock.
func CarryPath(journal string) string {
	base := filepath.Base(journal)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	return filepath.Join(filepath.Dir(journal), base+".carry.jsonl")
}

// CarryFingerprint names what decides the name of a run whose logs name
// no run_id: --run-id, the inputs and --run-window. A carried run of that
// kind is resumed only under the same fingerprint: another --run-id is
// another run, and must not begin with the old one's spend.
func CarryFingerprint(runID string, sources []string, window correlate.RunWindow) string {
	srcs := slices.Clone(sources)
	slices.Sort(srcs)
	h := sha256.New()
	fmt.Fprintf(h, "carry\x00%s\x00%s\x00", runID, window.String())
	for _, s := range srcs {
		h.Write([]byte(s + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// A log-derived string is written so that its exact bytes come back: as a
// JSON string (JSON-escaped) when it is valid UTF-8, else base64 in the
// field of the same name ending _base64 — encoding/json would replace a
// bad byte with U+FFFD, and a job ID so changed would be another job.
func splitText(s string) (plain, b64 string) {
	if utf8.ValidString(s) {
		return s, ""
	}
	return "", base64.StdEncoding.EncodeToString([]byte(s))
}

func joinText(plain, b64, name string) (string, error) {
	if b64 == "" {
		return plain, nil
	}
	if plain != "" {
		return "", fmt.Errorf("both %s and %s_base64", name, name)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", fmt.Errorf("%s_base64: %w", name, err)
	}
	return string(raw), nil
}

// The lines of a carry file: a header, then each run followed by its jobs,
// then an end line that repeats the counts (a file without it is torn).
type carryHeader struct {
	Version     int    `json:"burnrate_carry"`
	Fingerprint string `json:"fingerprint"`
	WrittenAt   string `json:"written_at"`
	PID         int    `json:"pid"`
}

type carryRunLine struct {
	Run         int    `json:"run"`
	RunID       string `json:"run_id,omitempty"`
	RunIDB64    string `json:"run_id_base64,omitempty"`
	LogRunID    string `json:"log_run_id,omitempty"`
	LogRunIDB64 string `json:"log_run_id_base64,omitempty"`
	Window      string `json:"window,omitempty"`
	Start       int64  `json:"window_start_ns,omitempty"`
	End         int64  `json:"window_end_ns,omitempty"`
	LastRoute   int64  `json:"route_last_ts_ns,omitempty"`
	Current     bool   `json:"current,omitempty"`
	Events      int64  `json:"events"`
	SpendPico   int64  `json:"spend_pico"`
	Attempts    int64  `json:"calls"`
	ToolCalls   int64  `json:"tool_calls"`
	FirstTS     int64  `json:"first_ts_ns"`
	LastTS      int64  `json:"last_ts_ns"`
	Jobs        int64  `json:"jobs"`
	LeftOut     int64  `json:"jobs_left_out"`
	// Statuses: the run's attempts by HTTP status ("200": n).
	Statuses map[string]int64 `json:"status,omitempty"`
}

type carryJobLine struct {
	Job       int    `json:"job_of_run"`
	ID        string `json:"job_id,omitempty"`
	IDB64     string `json:"job_id_base64,omitempty"`
	Type      string `json:"job_type,omitempty"`
	TypeB64   string `json:"job_type_base64,omitempty"`
	RunID     string `json:"job_run_id,omitempty"`
	RunIDB64  string `json:"job_run_id_base64,omitempty"`
	SpendPico int64  `json:"spend_pico"`
	Calls     int32  `json:"calls"`
	ToolCalls int32  `json:"tool_calls"`
	FirstTS   int64  `json:"first_ts_ns"`
	LastTS    int64  `json:"last_ts_ns"`
	// The job's standing, for the report: a queue lifecycle's outcome,
	// whether its last call failed, its spend on non-2xx attempts.
	Outcome    string `json:"outcome,omitempty"`
	LastFailed bool   `json:"last_failed,omitempty"`
	Non2xxPico int64  `json:"spend_non2xx_pico,omitempty"`
}

type carryEnd struct {
	End   bool `json:"end"`
	Runs  int  `json:"runs"`
	Jobs  int  `json:"jobs"`
	Decls int  `json:"declarations,omitempty"`
}

// carryDeclLine is one declared assumption of a run (its current value).
type carryDeclLine struct {
	Run     int    `json:"declaration_of_run"`
	JobType string `json:"job_type,omitempty"`
	Key     string `json:"key"`
	Value   string `json:"value"`
	From    string `json:"from,omitempty"`
	FirstTS int64  `json:"first_ts_ns,omitempty"`
}

// carryJobBound is at least the bytes a job's line takes: its texts as
// encoded (see textBound) and the rest of the line.
func carryJobBound(j *correlate.CarriedJob) int {
	return textBound(j.ID) + textBound(j.Type) + textBound(j.RunID) + 320
}

// textBound is at least the bytes of s in a carry line: base64 when it is
// not UTF-8, else JSON-escaped (a control byte as \u00XX, a quote or
// backslash as two, U+2028/2029 as six: counted on their lead byte).
func textBound(s string) int {
	if !utf8.ValidString(s) {
		return (len(s)+2)/3*4 + 2
	}
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20:
			n += 6
		case c == '"' || c == '\\':
			n += 2
		case c == 0xe2:
			n += 4
		default:
			n++
		}
	}
	return n
}

// fitCarry trims the runs' job lists, lowest spend first, until the file
// is sure to be within maxCarryBytes — long job IDs (up to 512 bytes
// each) would otherwise make a carry the next start refuses whole. A
// job left out is counted in its run's LeftOut; its spend stays in the
// run's. The runs are copied where trimmed, never changed in place.
func fitCarry(runs []engine.CarriedRun) []engine.CarriedRun {
	budget := maxCarryBytes - (maxCarryRuns+2)*2048 // the header, the run lines, the end
	for i := range runs {
		for _, d := range runs[i].Totals.Declared {
			// A declaration's line: its texts JSON-escaped (at most six
			// bytes a byte) and the rest.
			budget -= 6*(len(d.JobType)+len(d.Key)+len(d.Value)+len(d.From)) + 128
		}
	}
	total := 0
	for i := range runs {
		for j := range runs[i].Totals.JobList {
			total += carryJobBound(&runs[i].Totals.JobList[j])
		}
	}
	if total <= budget {
		return runs
	}
	type ref struct{ run, job int }
	var refs []ref
	for i := range runs {
		for j := range runs[i].Totals.JobList {
			refs = append(refs, ref{i, j})
		}
	}
	spend := func(r ref) correlate.Pico { return runs[r.run].Totals.JobList[r.job].Spend }
	slices.SortStableFunc(refs, func(a, b ref) int {
		switch {
		case spend(a) > spend(b):
			return -1
		case spend(a) < spend(b):
			return 1
		}
		return 0
	})
	keep := make(map[ref]bool, len(refs))
	used := 0
	for _, r := range refs {
		n := carryJobBound(&runs[r.run].Totals.JobList[r.job])
		if used+n > budget {
			continue
		}
		used += n
		keep[r] = true
	}
	out := slices.Clone(runs)
	for i := range out {
		t := out[i].Totals
		kept := make([]correlate.CarriedJob, 0, len(t.JobList))
		for j := range t.JobList {
			if keep[ref{i, j}] {
				kept = append(kept, t.JobList[j])
			}
		}
		t.LeftOut += int64(len(t.JobList) - len(kept))
		t.JobList = kept
		out[i].Totals = t
	}
	return out
}

// EncodeCarry writes a carry file's lines (fitted to maxCarryBytes).
func EncodeCarry(w io.Writer, fingerprint string, runs []engine.CarriedRun, now time.Time) error {
	runs = fitCarry(runs)
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(carryHeader{Version: carryVersion, Fingerprint: fingerprint, WrittenAt: now.UTC().Format(time.RFC3339), PID: os.Getpid()}); err != nil {
		return err
	}
	jobs, decls := 0, 0
	for i, r := range runs {
		t := r.Totals
		rl := carryRunLine{Run: i, Window: r.Window, Start: r.Start, End: r.End, LastRoute: r.LastTS, Current: r.Current, Events: t.Events, SpendPico: int64(t.Spend),
			Attempts: t.Attempts, ToolCalls: t.ToolCalls, FirstTS: t.FirstTS, LastTS: t.LastTS, Jobs: t.Jobs, LeftOut: t.LeftOut}
		rl.RunID, rl.RunIDB64 = splitText(r.ID)
		rl.LogRunID, rl.LogRunIDB64 = splitText(r.LogRunID)
		if len(t.Statuses) > 0 {
			// The most frequent, when a hostile log gave thousands.
			sts := slices.Collect(maps.Keys(t.Statuses))
			slices.SortFunc(sts, func(a, b int16) int { return cmp.Compare(t.Statuses[b], t.Statuses[a]) })
			rl.Statuses = make(map[string]int64, min(len(sts), maxCarryStatuses))
			for _, st := range sts[:min(len(sts), maxCarryStatuses)] {
				rl.Statuses[strconv.Itoa(int(st))] = t.Statuses[st]
			}
		}
		if err := enc.Encode(rl); err != nil {
			return err
		}
		for _, j := range t.JobList {
			jl := carryJobLine{Job: i, SpendPico: int64(j.Spend), Calls: j.Calls, ToolCalls: j.ToolCalls, FirstTS: j.FirstTS, LastTS: j.LastTS,
				LastFailed: j.LastFailed, Non2xxPico: int64(j.SpendNon2xx)}
			if j.Lifecycle {
				jl.Outcome = j.Outcome.String()
			}
			jl.ID, jl.IDB64 = splitText(j.ID)
			jl.Type, jl.TypeB64 = splitText(j.Type)
			jl.RunID, jl.RunIDB64 = splitText(j.RunID)
			if err := enc.Encode(jl); err != nil {
				return err
			}
			jobs++
		}
		for _, d := range t.Declared {
			if !utf8.ValidString(d.JobType + d.Key + d.Value + d.From) {
				continue // sanitised at ingest: never the case
			}
			if err := enc.Encode(carryDeclLine{Run: i, JobType: d.JobType, Key: d.Key, Value: d.Value, From: d.From, FirstTS: d.FirstTS}); err != nil {
				return err
			}
			decls++
		}
	}
	if err := enc.Encode(carryEnd{End: true, Runs: len(runs), Jobs: jobs, Decls: decls}); err != nil {
		return err
	}
	return bw.Flush()
}

// DecodeCarry reads a carry file's lines back; any line out of place,
// out of bounds or missing is an error naming its line.
func DecodeCarry(r io.Reader) (fingerprint string, runs []engine.CarriedRun, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxCarryLine)
	line := 0
	fail := func(format string, a ...any) error {
		return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, a...))
	}
	strict := func(b []byte, v any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		return d.Decode(v)
	}
	jobs, decls, ended := 0, 0, false
	// Per run: its jobs, once each, and what they spent in all (never
	// more than the run: a tampered or torn file is refused, not trusted).
	seen := map[int]map[[2]string]bool{}
	jobSums := map[int]correlate.Pico{}
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if ended {
			return "", nil, fail("text after the end line")
		}
		if line == 1 {
			var h carryHeader
			if err := strict(b, &h); err != nil {
				return "", nil, fail("not a carry header: %v", err)
			}
			if h.Version != carryVersion {
				return "", nil, fail("carry format %d, this burnrate reads %d", h.Version, carryVersion)
			}
			fingerprint = h.Fingerprint
			continue
		}
		// EncodeCarry writes each kind of line with its own first key.
		switch {
		case bytes.HasPrefix(b, []byte(`{"job_of_run":`)):
			var j carryJobLine
			if err := json.Unmarshal(b, &j); err != nil {
				return "", nil, fail("%v", err)
			}
			if len(runs) == 0 || j.Job != len(runs)-1 {
				return "", nil, fail("a job of run %d, after run %d", j.Job, len(runs)-1)
			}
			if jobs++; jobs > MaxCarryJobs {
				return "", nil, fail("more than %d jobs", MaxCarryJobs)
			}
			if j.SpendPico < 0 || j.Calls < 0 || j.ToolCalls < 0 || j.Non2xxPico < 0 {
				return "", nil, fail("a negative amount")
			}
			id, err1 := joinText(j.ID, j.IDB64, "job_id")
			typ, err2 := joinText(j.Type, j.TypeB64, "job_type")
			jrun, err3 := joinText(j.RunID, j.RunIDB64, "job_run_id")
			if err := errors.Join(err1, err2, err3); err != nil {
				return "", nil, fail("%v", err)
			}
			if id == "" {
				return "", nil, fail("a job with no job_id")
			}
			// Identity as ingest makes it: a longer ID is capped the same
			// way, so the job's next call finds it (a 100 KB ID seeded raw
			// became a second job and missed its kill).
			id, jrun = decode.CleanID(id), decode.CleanID(jrun)
			t := &runs[len(runs)-1].Totals
			if seen[len(runs)-1] == nil {
				seen[len(runs)-1] = map[[2]string]bool{}
			}
			if k := [2]string{jrun, id}; seen[len(runs)-1][k] {
				return "", nil, fail("job %q twice in one run", display.Text(id))
			} else {
				seen[len(runs)-1][k] = true
			}
			if sum := jobSums[len(runs)-1].Add(correlate.Pico(j.SpendPico)); sum > t.Spend {
				return "", nil, fail("its jobs spent more than its run (%d > %d picodollars)", int64(sum), int64(t.Spend))
			} else {
				jobSums[len(runs)-1] = sum
			}
			cj := correlate.CarriedJob{ID: id, Type: typ, RunID: jrun, Spend: correlate.Pico(j.SpendPico),
				Calls: j.Calls, ToolCalls: j.ToolCalls, FirstTS: j.FirstTS, LastTS: j.LastTS, LastFailed: j.LastFailed, SpendNon2xx: correlate.Pico(j.Non2xxPico)}
			if j.Outcome != "" {
				o, ok := correlate.ParseOutcome(j.Outcome)
				if !ok {
					return "", nil, fail("outcome %q", j.Outcome)
				}
				cj.Outcome, cj.Lifecycle = o, true
			}
			t.JobList = append(t.JobList, cj)
		case bytes.HasPrefix(b, []byte(`{"run":`)):
			var rl carryRunLine
			if err := strict(b, &rl); err != nil {
				return "", nil, fail("%v", err)
			}
			if rl.Run != len(runs) {
				return "", nil, fail("run %d where run %d was due", rl.Run, len(runs))
			}
			if len(runs) >= maxCarryRuns {
				return "", nil, fail("more than %d runs", maxCarryRuns)
			}
			id, err1 := joinText(rl.RunID, rl.RunIDB64, "run_id")
			logID, err2 := joinText(rl.LogRunID, rl.LogRunIDB64, "log_run_id")
			if err := errors.Join(err1, err2); err != nil {
				return "", nil, fail("%v", err)
			}
			if id == "" {
				return "", nil, fail("a run with no run_id")
			}
			if rl.Events < 0 || rl.SpendPico < 0 || rl.Attempts < 0 || rl.ToolCalls < 0 || rl.Jobs < 0 || rl.LeftOut < 0 {
				return "", nil, fail("a negative amount")
			}
			if len(rl.Statuses) > maxCarryStatuses {
				return "", nil, fail("more than %d statuses", maxCarryStatuses)
			}
			var statuses map[int16]int64
			for k, n := range rl.Statuses {
				st, err := strconv.ParseInt(k, 10, 16)
				if err != nil || n < 0 {
					return "", nil, fail("status %q: %d", k, n)
				}
				if statuses == nil {
					statuses = map[int16]int64{}
				}
				statuses[int16(st)] = n
			}
			runs = append(runs, engine.CarriedRun{ID: id, LogRunID: logID, Window: rl.Window, Start: rl.Start, End: rl.End, LastTS: rl.LastRoute,
				Current: rl.Current, Totals: correlate.Carried{Events: rl.Events, Spend: correlate.Pico(rl.SpendPico), Attempts: rl.Attempts, ToolCalls: rl.ToolCalls, FirstTS: rl.FirstTS,
					LastTS: rl.LastTS, Jobs: rl.Jobs, LeftOut: rl.LeftOut, Statuses: statuses}})
		case bytes.HasPrefix(b, []byte(`{"declaration_of_run":`)):
			var dl carryDeclLine
			if err := strict(b, &dl); err != nil {
				return "", nil, fail("%v", err)
			}
			if len(runs) == 0 || dl.Run != len(runs)-1 {
				return "", nil, fail("a declaration of run %d, after run %d", dl.Run, len(runs)-1)
			}
			if decls++; decls > maxCarryDecls {
				return "", nil, fail("more than %d declarations", maxCarryDecls)
			}
			if dl.Key == "" || len(dl.Key) > ingest.MaxAssumptionKeyBytes || len(dl.Value) > ingest.MaxAssumptionValueBytes || len(dl.JobType) > ingest.MaxIDBytes || len(dl.From) > 256 {
				return "", nil, fail("a declaration out of bounds")
			}
			t := &runs[len(runs)-1].Totals
			t.Declared = append(t.Declared, correlate.CarriedDeclaration{JobType: dl.JobType, Key: dl.Key, Value: dl.Value, From: dl.From, FirstTS: dl.FirstTS})
		case bytes.HasPrefix(b, []byte(`{"end":`)):
			var e carryEnd
			if err := strict(b, &e); err != nil {
				return "", nil, fail("%v", err)
			}
			if !e.End || e.Runs != len(runs) || e.Jobs != jobs || e.Decls != decls {
				return "", nil, fail("the end line counts %d run(s) and %d job(s), the file holds %d and %d", e.Runs, e.Jobs, len(runs), jobs)
			}
			ended = true
		default:
			return "", nil, fail("neither a run, a job nor the end")
		}
	}
	if err := sc.Err(); err != nil {
		return "", nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if line == 0 {
		return "", nil, errors.New("empty")
	}
	if !ended {
		return "", nil, fmt.Errorf("no end line after line %d (torn: the process stopped while writing it)", line)
	}
	return fingerprint, runs, nil
}

// Carrier owns a journal's carry file for one watch: it holds the carry
// lock, reads the carry at start and writes it while the watch runs.
type Carrier struct {
	path, fingerprint string
	lock              *os.File

	mu      sync.Mutex // one write at a time; guards failures
	fails   int
	pending chan []engine.CarriedRun
	done    chan struct{}
}

// OpenCarrier takes the carry lock of journal's carry file. A lock held by
// another process is said and carries nothing (nil, no error): two
// processes writing one carry would each overwrite the other's runs.
func OpenCarrier(journal, fingerprint string) *Carrier {
	path := CarryPath(journal)
	lp := path + ".lock"
	f, err := flock.Lock(lp)
	if held := (*flock.HeldError)(nil); errors.As(err, &held) {
		fmt.Fprintf(os.Stderr, "burnrate: warning: the carry file %s is held by %s: this process neither reads nor writes it, so its spend is not kept across a restart; give it its own --journal\n",
			display.Text(path), held.Holder)
		return nil
	} else if err != nil {
		fmt.Fprintf(os.Stderr, "burnrate: warning: the carry lock %s cannot be opened (%s): spend from inputs that cannot be read again is not kept across a restart; fix the directory of --journal\n",
			display.Text(lp), display.Text(err.Error()))
		return nil
	}
	return &Carrier{path: path, fingerprint: fingerprint, lock: f}
}

// Load reads the carry back: the runs to resume. Whatever is wrong with the
// file is said on stderr and ignores it, never ends the watch; a run that
// the logs did not name and that this configuration would name otherwise
// (another --run-id, other inputs, another --run-window) is said and left.
func (c *Carrier) Load() []engine.CarriedRun {
	if c == nil {
		return nil
	}
	ignore := func(why string) []engine.CarriedRun {
		fmt.Fprintf(os.Stderr, "burnrate: warning: the carry file %s %s: ignored, so spend before the last stop is not counted; it is rewritten at the next carry\n",
			display.Text(c.path), display.Text(why))
		return nil
	}
	st, err := os.Lstat(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return ignore("cannot be read: " + err.Error())
	}
	if !st.Mode().IsRegular() {
		// Never written through either: said so, not "rewritten".
		fmt.Fprintf(os.Stderr, "burnrate: warning: the carry file %s is %s, not a regular file: ignored and left alone, so spend before the last stop is not counted, and no carry is written until you remove it\n",
			display.Text(c.path), config.FileKind(st.Mode()))
		return nil
	}
	if st.Size() > maxCarryBytes {
		return ignore(fmt.Sprintf("is %d bytes, more than the %d a carry may be", st.Size(), maxCarryBytes))
	}
	f, err := os.OpenFile(c.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ignore("cannot be opened: " + err.Error())
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !fst.Mode().IsRegular() {
		return ignore("is not a regular file")
	}
	fp, runs, err := DecodeCarry(io.LimitReader(f, maxCarryBytes))
	if err != nil {
		// Kept aside for a look, not overwritten by the next carry.
		aside := c.path + ".bad-" + time.Now().UTC().Format("20060102T150405Z")
		if rerr := os.Rename(c.path, aside); rerr == nil {
			return ignore("is corrupt or torn (" + err.Error() + "); kept as " + aside)
		}
		return ignore("is corrupt or torn (" + err.Error() + ")")
	}
	kept := runs[:0]
	for _, r := range runs {
		if r.LogRunID == "" && fp != c.fingerprint {
			fmt.Fprintf(os.Stderr, "burnrate: the carried run %s is not resumed: it was named by a --run-id, inputs or --run-window other than this watch's, so this is another run and begins at $0\n",
				display.Text(r.ID))
			continue
		}
		kept = append(kept, r)
	}
	var spend correlate.Pico
	jobs := 0
	for _, r := range kept {
		spend = spend.Add(r.Totals.Spend)
		jobs += len(r.Totals.JobList)
	}
	if len(kept) > 0 {
		fmt.Fprintf(os.Stderr, "burnrate: resumed %d run(s) carried across the last stop (%s, %d job(s)) from %s\n", len(kept), correlate.USD(spend.USD()), jobs, display.Text(c.path))
	}
	return kept
}

// Start runs the periodic writer: Offer hands it the latest carry.
func (c *Carrier) Start() {
	if c == nil {
		return
	}
	c.pending = make(chan []engine.CarriedRun, 1)
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		for runs := range c.pending {
			c.write(runs)
		}
	}()
}

// Offer queues a carry for the writer, replacing one not written yet; it
// never blocks (the engine calls it).
func (c *Carrier) Offer(runs []engine.CarriedRun) {
	for {
		select {
		case c.pending <- runs:
			return
		default:
		}
		select {
		case <-c.pending:
		default:
		}
	}
}

// Final stops the periodic writer and writes the last carry, so nothing
// older can be renamed over it.
func (c *Carrier) Final(runs []engine.CarriedRun) {
	if c == nil {
		return
	}
	if c.pending != nil {
		close(c.pending)
		<-c.done
		c.pending = nil
	}
	c.write(runs)
}

// Close releases the carry lock.
func (c *Carrier) Close() {
	if c != nil && c.lock != nil {
		flock.Unlock(c.lock)
		c.lock = nil
	}
}

// write replaces the carry file atomically; a failure is said (the first,
// then every hundredth) and the last good carry stays.
func (c *Carrier) write(runs []engine.CarriedRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writeFile(runs); err != nil {
		if c.fails++; c.fails == 1 || c.fails%100 == 0 {
			fmt.Fprintf(os.Stderr, "burnrate: error: the carry file %s could not be written (%d failure(s) so far): %s; free space or fix --journal: until it writes, a restart begins with the last carry written\n",
				display.Text(c.path), c.fails, display.Text(err.Error()))
		}
	}
}

func (c *Carrier) writeFile(runs []engine.CarriedRun) error {
	if st, err := os.Lstat(c.path); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file: remove it", c.path, config.FileKind(st.Mode()))
	}
	dir := filepath.Dir(c.path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(c.path)+".*.tmp") // O_EXCL, 0600
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	if err := EncodeCarry(f, c.fingerprint, runs, time.Now()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), c.path); err != nil {
		return err
	}
	// The rename is durable once the directory is.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
