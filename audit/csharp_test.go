package audit

import "testing"

// TestDotNetLayers: the HttpClient standard resilience handler (3
// retries unset, 5 set in its lambda), Polly 8's AddRetry with a constant
// (2 retries), Polly 7's WaitAndRetryAsync(4) and RetryForeverAsync
// (unbounded), and a hand-rolled loop bounded by a parameter's default
// after a verbatim string ending in a backslash. Before, no .cs file was
// read: 0 layers.
func TestDotNetLayers(t *testing.T) {
	r := scan(t, "testdata/dotnet")
	sameLayers(t, r, []want{
		{"Worker/Program.cs:11", "dotnet-http-resilience", 4, false},
		{"Worker/Program.cs:14", "dotnet-http-resilience", 6, true},
		{"Worker/Program.cs:17", "polly", 3, true},
		{"Worker/Program.cs:22", "polly-v7", 5, true},
		{"Worker/Program.cs:24", "polly-v7", 0, true},
		{"Worker/Summarizer.cs:16", "hand-rolled", 3, true},
	})
}
