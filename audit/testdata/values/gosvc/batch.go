package gosvc

import (
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

func BatchClient() *retryablehttp.Client {
	rc := retryablehttp.NewClient()
	rc.RetryMax = defaultRetryMax
	return rc
}

func Upload(send func() error) (err error) {
	for i := 0; i < maxTries; i++ {
		if err = send(); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i+1) * time.Second)
	}
	return err
}
