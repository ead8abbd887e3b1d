module example.com/goworker

go 1.24

require (
	github.com/anthropics/anthropic-sdk-go v1.2.0
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/failsafe-go/failsafe-go v0.6.9
	github.com/hashicorp/go-retryablehttp v0.7.7
)
