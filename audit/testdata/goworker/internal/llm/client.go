package llm

import (
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/cenkalti/backoff/v4"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/hashicorp/go-retryablehttp"
)

// doc shows the call; it is not one: anthropic.NewClient(option.WithMaxRetries(9))
const doc = "anthropic.NewClient(option.WithMaxRetries(9))"

func NewClient() anthropic.Client {
	return anthropic.NewClient(option.WithMaxRetries(4), option.WithRequestTimeout(2*time.Minute))
}

func HTTPClient() *http.Client {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 2
	return rc.StandardClient()
}

func Fetch(op func() error) error {
	return backoff.Retry(op, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
}

var Policy = retrypolicy.Builder[any]().
	WithDelay(time.Second).
	WithMaxRetries(5).
	Build()

func Poll(check func() bool) bool {
	for i := 0; i < 3; i++ {
		if check() {
			return true
		}
		time.Sleep(time.Second)
	}
	return false
}
