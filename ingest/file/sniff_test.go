package file

import "testing"

// TestSniffProvesBeforeItCommits: a file is a JSON document only once its
// first record parses as one.
func TestSniffProvesBeforeItCommits(t *testing.T) {
	for _, c := range []struct {
		head  string
		whole bool
		want  documentKind
	}{
		{`[log_c0cd86, request-id: "req_1"] post https://api.anthropic.com/v1/messages failed with status 529 in 30ms` + "\n", true, lineRecords},
		{"[2023-11-20 21:33:59.751] message.py (27) - [INFO] : hi\n", true, lineRecords},
		{"[37m[2023-11-20 21:33:59.751] message.py (27) - [INFO] : hi\n", true, lineRecords},
		{"[1] retrying\n", true, lineRecords},
		{"[INFO] retrying\n", true, lineRecords},
		{"[\n", true, lineRecords},
		{`[{"model":"gpt-4o","response_cost":0.1},` + "\n" + `{"model":"gpt-4o"}]`, true, jsonArray},
		{"[\n  {\n    \"model\": \"gpt-4o\"\n  }\n]\n", true, jsonArray},
		{"[]", true, jsonArray},
		{`[{"model":"gpt-4o","text":"cut by the head`, false, jsonArray}, // a record bigger than the head
		{`[{"model":"gpt-4o","text":"cut off for good`, true, lineRecords},
		{"{\n  \"model\": \"gpt-4o\"\n}\n", true, jsonValues},
		{`{"model":"gpt-4o"}` + "\n" + `{"model":"gpt-4o"}` + "\n", true, lineRecords},
		{`{"model":"gpt-4o"} trailing text` + "\n", true, lineRecords},
		{`{"model":"gpt-4o", "text":"a line longer than the head`, false, lineRecords}, // issue 38: a long line, read (or skipped) as one
		{"{\n  \"model\": \"gpt-4o\", \"text\": \"a pretty value longer than the head", false, jsonValues},
		{`{"resourceSpans":[{"resource":{"attributes":"longer than the head`, false, jsonValues},
		{`{"model":"gpt-4o"` + "\n", true, lineRecords}, // a truncated last line
		{`{broken json} and text` + "\n", true, lineRecords},
		{`{"resourceSpans":[]}` + "\n", true, jsonValues},
	} {
		if got, _ := sniffDocument([]byte(c.head), c.whole); got != c.want {
			t.Errorf("%q (whole %v): %d, want %d", c.head, c.whole, got, c.want)
		}
	}
}
