package gosvc

import "github.com/hashicorp/go-retryablehttp"

func BatchClient() *retryablehttp.Client {
	rc := retryablehttp.NewClient()
	rc.RetryMax = defaultRetryMax
	return rc
}
