package correlate

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzSplitObjectMatchesEncodingJSON: on any valid JSON object the one-pass
// splitter finds the members encoding/json finds, value bytes and all; on
// anything else it returns, without panicking.
func FuzzSplitObjectMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"a":1} `, `{"a":{"b":[1,"}",{"c":"\""}]},"d":"x\\"}`, `{"k\u0065y":true,"key":false}`,
		`{"a":null,"b":-1.5e3,"c":[]}`, `{"a":`, `{"a":1,}`, `[1]`, `{"a" 1}`, `{"\"":"\\"}`,
		"{\"\xe2\":0}", // invalid UTF-8 in a key: encoding/json reads it as U+FFFD
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, end, err := splitObject(b)
		var want map[string]json.RawMessage
		if json.Unmarshal(b, &want) != nil || want == nil {
			return // not a valid object: no crash is all that is asked
		}
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if len(bytes.TrimSpace(b[end:])) != 0 {
			t.Fatalf("%q: object ends at %d", b, end)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("%q: member %q = %q, encoding/json %q", b, k, got[k], v)
			}
		}
	})
}
