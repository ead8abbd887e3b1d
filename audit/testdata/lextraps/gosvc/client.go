package gosvc

import (
	"net/http"

	"github.com/hashicorp/go-retryablehttp"
)

// A Windows share root, written raw: the backslash escapes nothing.
const shareRoot = `\\fileserver\`

func HTTPClient() *http.Client {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 7
	return rc.StandardClient()
}
