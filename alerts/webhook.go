package alerts

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/display"
)

// Webhook delivery defaults. They practise what the seeds preach: a
// timeout per call, retries only on retryable errors, full jitter, server
// guidance (Retry-After) wins, and an absolute deadline over everything.
//
// Two bounds: Deadline bounds one delivery (its attempts and the waits
// between them, holding a worker); RetryFor is the absolute deadline of a
// kill in a running daemon: a delivery that failed with a retryable error
// is sent again, after a backoff that frees the worker, until RetryFor has
// passed since its first attempt in this process — then it is failed,
// and the next start sends it again.
const (
	DefaultCallTimeout = 5 * time.Second
	DefaultDeadline    = 60 * time.Second
	// DefaultRetryFor is how long a running daemon keeps delivering a
	// failed kill.
	DefaultRetryFor = 15 * time.Minute
	// DefaultMaxRetryAfter caps a receiver's Retry-After: a kill waits
	// at most this long on the server's word (a "Retry-After: 3600" must
	// not park a kill for an hour while the money burns).
	DefaultMaxRetryAfter = 30 * time.Second
	backoffBase          = 500 * time.Millisecond
	backoffCap           = 10 * time.Second
	// Between deliveries: equal jitter from 1 s, doubling to 60 s.
	redeliverBase = time.Second
	redeliverCap  = 60 * time.Second
)

// ErrPermanent marks a delivery that must not be retried (400, 409, 422
// and the other 4xx not named below): the receiver understood and refused
// the request.
var ErrPermanent = errors.New("permanent failure")

// ErrMisconfigured marks a delivery that did not reach a receiver able to
// judge it: a redirect (3xx), or 401, 403, 404, 405, 407, 421 — a wrong
// URL, token or proxy.
// Retrying now cannot help, but the kill itself was never refused: once
// the operator fixes the setting and restarts, it is sent again.
var ErrMisconfigured = errors.New("misconfigured receiver")

// misconfiguredStatus is true for the answers that say "wrong address or
// credentials", not "I read your kill and refuse it".
func misconfiguredStatus(s int) bool {
	return (s >= 300 && s < 400) || s == 401 || s == 403 || s == 404 || s == 405 || s == 407 || s == 421
}

// Delivery is the outcome of posting one webhook.
type Delivery struct {
	Attempts int
	Status   int // last HTTP status, 0 when no response arrived
	Err      error
	// RetryAfter is the receiver's Retry-After (capped) when the delivery
	// ended because waiting it out would pass the delivery's deadline:
	// the next delivery waits at least that long.
	RetryAfter time.Duration
}

// Poster posts JSON bodies with the retry policy above.
type Poster struct {
	Client      *http.Client
	CallTimeout time.Duration
	Deadline    time.Duration
	Secret      []byte // HMAC-SHA256 key for X-Burnrate-Signature; nil for none
	// RetryFor and MaxRetryAfter: see DefaultRetryFor, DefaultMaxRetryAfter.
	RetryFor      time.Duration
	MaxRetryAfter time.Duration
	// sleep waits between attempts; tests replace it.
	sleep func(context.Context, time.Duration) error
}

// NewPoster returns a poster with the defaults filled in.
func NewPoster(callTimeout, deadline time.Duration, secret []byte) *Poster {
	if callTimeout <= 0 {
		callTimeout = DefaultCallTimeout
	}
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	return &Poster{Client: noRedirectClient(), CallTimeout: callTimeout, Deadline: deadline, Secret: secret, sleep: sleepCtx,
		RetryFor: DefaultRetryFor, MaxRetryAfter: DefaultMaxRetryAfter}
}

// retryFor and maxRetryAfter are the fields with their defaults, for a
// Poster built without NewPoster.
func (p *Poster) retryFor() time.Duration {
	if p.RetryFor > 0 {
		return p.RetryFor
	}
	return DefaultRetryFor
}

func (p *Poster) maxRetryAfter() time.Duration {
	if p.MaxRetryAfter > 0 {
		return p.MaxRetryAfter
	}
	return DefaultMaxRetryAfter
}

// redeliverWait is how long a failed delivery waits before the next one
// (round counts the deliveries made): equal jitter — half fixed, half
// random — so kills that failed together do not come back together, and
// never less than the receiver's Retry-After.
func redeliverWait(round int, retryAfter time.Duration) time.Duration {
	d := min(redeliverCap, redeliverBase<<min(max(round-1, 0), 20))
	return max(retryAfter, d/2+time.Duration(rand.Int64N(int64(d/2)+1)))
}

// noRedirectClient never follows a redirect. Go's default client would:
// a 301/302 turns the POST into a body-less GET whose 200 looks like an
// acknowledged kill that never arrived, and a 307/308 re-sends the signed
// body and Idempotency-Key to whatever host Location names. The 3xx is
// returned as it is, and once reads it as a failed delivery.
func noRedirectClient() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// roundTrip sends req once through the client's transport, never through
// http.Client.Do: Do parses a 3xx's Location before CheckRedirect is
// asked, so a Location Go cannot parse ("http://x/a b%zz") came back as a
// connection error and was retried for the whole retry_for, about 20 POSTs
// a minute (red team R7-3). The transport returns the response the
// receiver sent, whatever its Location says, and once classifies it by
// its status. (The transport never follows a redirect; the client's
// CheckRedirect is kept for whoever uses Client directly.)
func (p *Poster) roundTrip(req *http.Request) (*http.Response, error) {
	if u := req.URL.User; u != nil && req.Header.Get("Authorization") == "" {
		// What Client.Do does for a URL with user info (https://u:p@host/).
		pw, _ := u.Password()
		req.SetBasicAuth(u.Username(), pw)
	}
	rt := http.DefaultTransport
	if p.Client != nil && p.Client.Transport != nil {
		rt = p.Client.Transport
	}
	return rt.RoundTrip(req)
}

// ErrProtocol marks an answer that is not valid HTTP: a header line with
// a control byte, a response line that is not one (a TLS port, another
// protocol). The receiver was reached and answered, so this is no
// connection error: sending the same request again gets the same bytes.
// It wraps ErrMisconfigured — not retried in this run, sent again at the
// next start under the same Idempotency-Key, once the receiver (or a
// proxy in front of it) is fixed.
var ErrProtocol = fmt.Errorf("%w: the receiver's answer is not valid HTTP", ErrMisconfigured)

// protocolError reports whether err is the transport's "the peer answered
// with bytes that are not an HTTP response": a malformed header line
// (textproto.ProtocolError), or a malformed response or status line.
func protocolError(err error) bool {
	var pe textproto.ProtocolError
	if errors.As(err, &pe) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "malformed HTTP response") || strings.Contains(s, "malformed HTTP status code") ||
		strings.Contains(s, "malformed HTTP version")
}

// maxProtocolDetail bounds the part of the peer's bad answer that is
// quoted in the error (the journal, stderr, the dashboard).
const maxProtocolDetail = 200

// Sign returns the X-Burnrate-Signature value for body.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Post delivers body to url with the same Idempotency-Key on every attempt,
// so a receiver can drop the duplicates that retries produce.
func (p *Poster) Post(ctx context.Context, url, idempotencyKey string, body []byte) Delivery {
	ctx, cancel := context.WithTimeout(ctx, p.Deadline)
	defer cancel()
	var d Delivery
	for attempt := 0; ; attempt++ {
		d.Attempts++
		status, retryAfter, err := p.once(ctx, url, idempotencyKey, body)
		d.Status, d.Err = status, err
		if err == nil {
			return d
		}
		final := errors.Is(err, ErrPermanent) || errors.Is(err, ErrMisconfigured)
		if final || ctx.Err() != nil {
			if ctx.Err() != nil && !final {
				d.Err = fmt.Errorf("deadline of %s reached after %d attempts: %w", p.Deadline, d.Attempts, err)
			}
			return d
		}
		wait := fullJitter(attempt)
		if retryAfter > 0 {
			// The server said how long; honoured up to a cap.
			wait = min(retryAfter, p.maxRetryAfter())
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			if retryAfter > 0 {
				d.RetryAfter = wait
			}
			d.Err = fmt.Errorf("deadline of %s would pass before the next attempt (%d made): %w", p.Deadline, d.Attempts, err)
			return d
		}
		if err := p.sleep(ctx, wait); err != nil {
			d.Err = fmt.Errorf("deadline of %s reached after %d attempts: %w", p.Deadline, d.Attempts, d.Err)
			return d
		}
	}
}

// once makes one attempt; it returns the status, any Retry-After, and an
// error that wraps ErrPermanent or ErrMisconfigured when retrying cannot
// help.
func (p *Poster) once(ctx context.Context, url, key string, body []byte) (int, time.Duration, error) {
	callCtx, cancel := context.WithTimeout(ctx, p.CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(callCtx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, fmt.Errorf("%w: bad webhook URL %s: %v", ErrPermanent, RedactURL(url), redactErr(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "burnrate")
	req.Header.Set("Idempotency-Key", key)
	if p.Secret != nil {
		req.Header.Set("X-Burnrate-Signature", Sign(p.Secret, body))
	}
	resp, err := p.roundTrip(req)
	if err != nil {
		if callCtx.Err() == nil && protocolError(err) {
			// What the peer sent, quoted by Go (%q) and redacted as a
			// body is: it may echo a header of ours or hold a token.
			detail := display.Text(Redact(err.Error()))
			if len(detail) > maxProtocolDetail {
				detail = strings.ToValidUTF8(detail[:maxProtocolDetail], "") + "…"
			}
			return 0, 0, fmt.Errorf("%w (%s); not sent again in this run: fix the receiver, or the proxy in front of it, and restart: the kill is sent again", ErrProtocol, detail)
		}
		return 0, 0, fmt.Errorf("connection: %w", redactErr(err)) // retryable
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	snippet := scrub(raw, url)
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return s, 0, nil
	case s >= 300 && s < 400:
		loc := resp.Header.Get("Location")
		if loc == "" {
			loc = "nowhere (no Location header)"
		} else {
			loc = display.Text(RedactURL(loc))
		}
		return s, 0, fmt.Errorf("%w: HTTP %d redirects to %s; redirects are never followed (the kill did not reach a receiver): set the webhook URL to the final address", ErrMisconfigured, s, loc)
	case misconfiguredStatus(s):
		said := ""
		if len(snippet) > 0 {
			said = fmt.Sprintf(" (%s)", snippet)
		}
		return s, 0, fmt.Errorf("%w: HTTP %d %s%s; check the webhook URL and the receiver's token, then restart: the kill is sent again", ErrMisconfigured, s, http.StatusText(s), said)
	case s == 408 || s == 429 || s >= 500:
		return s, retryAfter(resp.Header.Get("Retry-After")), fmt.Errorf("HTTP %d: %s", s, snippet)
	default:
		return s, 0, fmt.Errorf("%w: HTTP %d: %s", ErrPermanent, s, snippet)
	}
}

// RedactURL shows where a URL points without what may be a secret in it:
// the scheme and host stay, user info goes, and a path or query becomes
// "…" — a Slack-style webhook's secret is its path, others carry
// ?token=. The journal, stdout, stderr (the system journal under systemd)
// and the dashboard only ever see this form.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(a URL that does not parse)"
	}
	out := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" {
		out += "/…"
	}
	if u.RawQuery != "" {
		out += "?…"
	}
	return out
}

// scrub takes what may be the receiver's secret out of its answer's body
// (a framework's "Cannot POST /hooks/SECRET?token=…" echoes the URL): every
// path segment and query value of the configured URL becomes "…", and
// what is left is made safe to show.
func scrub(body []byte, rawURL string) []byte {
	s := string(bytes.TrimSpace(body))
	if u, err := url.Parse(rawURL); err == nil {
		var secrets []string
		if u.User != nil {
			secrets = append(secrets, u.User.String())
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if len(seg) >= 3 {
				secrets = append(secrets, seg)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				if len(v) >= 3 {
					secrets = append(secrets, v)
				}
			}
		}
		if u.RawQuery != "" {
			secrets = append(secrets, u.RawQuery)
		}
		// Longest first, so a secret that contains another goes whole.
		slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
		for _, sec := range secrets {
			s = strings.ReplaceAll(s, sec, "…")
		}
	}
	// A receiver that echoes the request's headers ("Authorization:
	// Bearer …", a key in a query string) is redacted too.
	return []byte(display.Text(Redact(s)))
}

// redactErr takes the URL out of an error from the HTTP client, which
// quotes it whole ("Post \"https://hooks.slack.com/services/T/B/SECRET\"").
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s: %w", ue.Op, RedactURL(ue.URL), ue.Err)
	}
	return err
}

// fullJitter is AWS's "full jitter": uniform in [0, min(cap, base·2^n)].
func fullJitter(attempt int) time.Duration {
	ceil := min(backoffCap, backoffBase<<min(attempt, 20))
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
		return time.Duration(min(s, 3600) * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
