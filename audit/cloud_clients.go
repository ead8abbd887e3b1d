package audit

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The cloud providers' clients, whose retry policy is their SDK's core
// library's: botocore, google-genai, Azure's azure-core (Python and JS).

var (
	pyBotoClient    = regexp.MustCompile(`\b(?:boto3|session|\w*[sS]ession)\.(?:client|resource)\s*\(`)
	pyAioBotoClient = regexp.MustCompile(`\.create_client\s*\(`)
	pyBotoTotal     = regexp.MustCompile(`['"]total_max_attempts['"]\s*:\s*([0-9]+)`)
	pyBotoMax       = regexp.MustCompile(`['"]max_attempts['"]\s*:\s*([0-9]+)`)
	pyBotoStandard  = regexp.MustCompile(`['"]mode['"]\s*:\s*['"](?:standard|adaptive)['"]`)
	pyGenaiRetry    = regexp.MustCompile(`\bHttpRetryOptions\s*\(`)
	pyGenaiAttempt  = knobRe("attempts")
	pyRetryTotal    = knobRe("retry_total")
	pyRetryStatus   = knobRe("retry_status")
)

// botocore: each boto3 client or resource of a file that imports boto3.
// aiobotocore's session.create_client(…) runs botocore's retry handler
// under the same config: legacy mode's 5 attempts unless set (issue 37,
// round 6: private-gpt's two async clients, missed).
func botocore(f *file) []Layer {
	// aioboto3's session.client(…) is an aiobotocore client under the
	// boto3 spelling (issue 37, round 7: MetaGPT's four S3 clients).
	boto, aio := importsPrefix(f.pyImports(), "boto3") || importsPrefix(f.pyImports(), "aioboto3"), importsPrefix(f.pyImports(), "aiobotocore")
	if !boto && !aio {
		return nil
	}
	raw := f.raw
	var out []Layer
	var found [][]int
	if boto {
		found = pyBotoClient.FindAllIndex(f.blanked(), maxCandidates)
	}
	if boto {
		found = append(found, pyBotoSessionCalls(f.blanked())...)
	}
	if aio {
		found = append(found, pyAioBotoClient.FindAllIndex(f.blanked(), maxCandidates)...)
	}
	slices.SortFunc(found, func(a, b []int) int { return a[0] - b[0] })
	if len(found) == 0 {
		return nil
	}
	// The retry config is a dict of strings: read it from the source,
	// where a Config(...) of this file sets it — once for the file, not
	// once per client (a file of 256 clients read its megabyte 768 times).
	total, most, standard := pyBotoTotal.FindSubmatch(raw), pyBotoMax.FindSubmatch(raw), pyBotoStandard.Find(raw)
	for _, m := range found {
		if credentialService(f, m[1]-1) {
			continue // an STS or identity client, not the service's (notlayers.go)
		}
		l := newLayer("botocore", f.rel, f.lines().at(m[0]), "python", ConfidenceMedium)
		if v := total; v != nil {
			n, _ := strconv.Atoi(string(v[1]))
			l.setAttempts(n, string(v[0]))
		} else if v := most; v != nil {
			n, _ := strconv.Atoi(string(v[1]))
			l.set(n, string(v[0])+" (retries: botocore adds the first attempt)")
		} else if v := standard; v != nil {
			l.setAttempts(3, string(v)+" (standard mode's default)")
		}
		out = append(out, l)
	}
	return out
}

var (
	pyBotoMethod     = regexp.MustCompile(`\)\s*\.(?:client|resource)\s*\(`)
	pySessionFactory = regexp.MustCompile(`\bdef\s+([A-Za-z_]\w*)\s*\([^)]*\)\s*->\s*['"]?(?:aioboto3\.|boto3\.|boto3\.session\.)?Session\b`)
)

// pyBotoSessionCalls: a client made from the session a helper returns —
// self._get_session(kind).client("s3"), get_session().resource("dynamodb")
// — whose helper is named for a session or annotated to return a
// boto3/aioboto3 Session (issue 37, round 8: skyvern's five aioboto3
// clients). Each is the offset of the call's .client/.resource; the
// helper's own name, not what it does, is read.
func pyBotoSessionCalls(code []byte) [][]int {
	factories := map[string]bool{}
	for _, m := range pySessionFactory.FindAllSubmatch(code, maxCandidates) {
		factories[string(m[1])] = true
	}
	var out [][]int
	for _, m := range pyBotoMethod.FindAllIndex(code, maxCandidates) {
		open := matchingOpen(code, m[0])
		if open < 0 {
			continue
		}
		name := lastSegment(string(bytes.TrimRight(precedingName(code, open), " \t")))
		if name == "" {
			continue
		}
		if factories[name] || strings.HasSuffix(strings.ToLower(name), "session") {
			out = append(out, []int{m[0] + 1, m[1]})
		}
	}
	return out
}

// matchingOpen is the offset of the ( that the ) at close closes, looking
// back at most maxArgBytes, or -1.
func matchingOpen(code []byte, close int) int {
	depth := 0
	for i := close; i >= 0 && close-i < maxArgBytes; i-- {
		switch code[i] {
		case ')', ']', '}':
			depth++
		case '(', '[', '{':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// precedingName is the dotted name written just before offset at
// (self._get_session before its parenthesis).
func precedingName(code []byte, at int) []byte {
	i := at
	for i > 0 && (isWord(code[i-1]) || code[i-1] == '.') {
		i--
	}
	return code[i:at]
}

// googleGenai: HttpRetryOptions(attempts=N), 5 attempts when unset.
func googleGenai(f *file) []Layer {
	bs := f.pyImports()
	if !importsPrefix(bs, "google.genai") && !importsPrefix(bs, "google") {
		return nil
	}
	code := f.blanked()
	var out []Layer
	for _, m := range pyGenaiRetry.FindAllIndex(code, maxCandidates) {
		o := m[1] - 1
		l := newLayer("google-genai", f.rel, f.lines().at(o), "python", ConfidenceMedium)
		a, b := args(code, o)
		if v, ok, num, k := intKnob(pyGenaiAttempt, code[a:b]); ok && num {
			l.setAttempts(v, snippet(code[a:b], k))
		} else {
			l.setAttempts(5, "HttpRetryOptions() (5 attempts when enabled)")
			l.Configured = false
		}
		out = append(out, l)
	}
	return out
}

// pyAzure: Azure AI clients (azure.ai.inference, azure.ai.projects, …):
// each carries azure-core's RetryPolicy. A status error has retry_status
// (3) retries, and never more than retry_total (10).
func pyAzure(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for local, full := range f.pyImports() {
		mod, name, ok := cutLast(full)
		if !ok || !strings.HasPrefix(mod, "azure.ai.") || !strings.HasSuffix(name, "Client") {
			continue
		}
		for _, o := range pyCalls(code, local) {
			a, b := args(code, o)
			out = append(out, azurePolicy(f, o, code[a:b]))
		}
	}
	return out
}

// pyAzureStorage: the Azure Storage clients (BlobServiceClient,
// ContainerClient, QueueServiceClient, ShareServiceClient,
// DataLakeServiceClient, from azure.storage.* and their .aio modules),
// built directly or by from_connection_string / from_*_url. They do not
// carry azure-core's RetryPolicy but the storage package's
// ExponentialRetry: retry_total 3, 4 attempts (issue 37, round 8: agno's
// two blob clients, no row).
func pyAzureStorage(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for local, full := range f.pyImports() {
		mod, name, ok := cutLast(full)
		if !ok || !dottedPrefix(mod, "azure.storage") || !strings.HasSuffix(name, "Client") {
			continue
		}
		opens := callsOf(code, local, false)
		// BlobServiceClient.from_connection_string(conn): the same
		// client, built by a class method.
		for _, ctor := range []string{".from_connection_string", ".from_blob_url", ".from_container_url", ".from_queue_url", ".from_share_url", ".from_file_url", ".from_directory_url"} {
			opens = append(opens, callsOf(code, local+ctor, false)...)
		}
		for _, o := range opens {
			a, b := args(code, o)
			l := newLayer("azure-storage-python", f.rel, f.lines().at(o), "python", ConfidenceMedium)
			if v, ok, num, at := intKnob(pyRetryTotal, code[a:b]); ok {
				if num {
					l.set(v, snippet(code[a:b], at))
				} else {
					l.setUnknown(snippet(code[a:b], at))
				}
			} else if bytes.Contains(code[a:b], []byte("retry_policy")) {
				// A policy of the project's own (ExponentialRetry(retry_total=N),
				// LinearRetry, NoRetry): its count is not read here.
				l.setUnknown(snippet(code[a:b], bytes.Index(code[a:b], []byte("retry_policy"))))
			}
			out = append(out, l)
		}
	}
	return out
}

// azurePolicy is the layer of one Azure client call, its arguments region.
func azurePolicy(f *file, o int, region []byte) Layer {
	l := newLayer("azure-core-python", f.rel, f.lines().at(o), "python", ConfidenceMedium)
	total, status := 10, 3
	var written []string
	for _, k := range []struct {
		re  *regexp.Regexp
		dst *int
	}{{pyRetryTotal, &total}, {pyRetryStatus, &status}} {
		if v, ok, num, at := intKnob(k.re, region); ok {
			written = append(written, snippet(region, at))
			if num {
				*k.dst = v
			} else {
				l.setUnknown(snippet(region, at))
			}
		}
	}
	if len(written) > 0 && l.Confidence != ConfidenceLow {
		l.set(min(total, status), strings.Join(written, ", "))
	}
	return l
}

var (
	jsAzureRetry  = regexp.MustCompile(`\bretryOptions\s*:\s*\{[^}]*\bmaxRetries\s*:\s*([0-9_]+|[A-Za-z_$][\w$.]*)`)
	jsAzureModule = regexp.MustCompile(`^@azure(?:-rest)?/(?:ai-[\w-]+|openai)$`)
)

// jsAzure: new ChatCompletionsClient(...), and @azure-rest/ai-inference's
// ModelClient(...) called without new.
func jsAzure(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for name, b := range f.jsImports() {
		if !jsAzureModule.MatchString(b.module) || (b.imported != "default" && !strings.HasSuffix(b.imported, "Client")) {
			continue
		}
		for _, o := range jsCalls(code, name, false) {
			a, e := args(code, o)
			l := newLayer("azure-core-js", f.rel, f.lines().at(o), "javascript", ConfidenceMedium)
			if v, ok, num, at := intKnob(jsAzureRetry, code[a:e]); ok {
				if num {
					l.set(v, "retryOptions: { maxRetries: "+strconv.Itoa(v)+" }")
				} else {
					l.setUnknown(snippet(code[a:e], at))
				}
			}
			out = append(out, l)
		}
	}
	return out
}
