package gosvc

import (
	"errors"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Config is read by envconfig.Process("app", &cfg).
type Config struct {
	RetryMax int `envconfig:"RETRY_MAX" default:"10"`
}

const maxPolls = 4

func HTTPClient(cfg Config) *http.Client {
	rc := retryablehttp.NewClient()
	rc.RetryMax = cfg.RetryMax
	return rc.StandardClient()
}

func Poll(check func() error) error {
	var err error
	for i := 0; i < maxPolls; i++ {
		if err = check(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return errors.Join(err)
}
