package horde

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

type status struct {
	Done bool   `json:"done"`
	Text string `json:"text"`
}

// Wait polls a submitted job until it is done: an error ends the wait,
// nothing is sent again.
func Wait(c *http.Client, id string) (string, error) {
	const maxAttempts = 60
	for attempt := 0; attempt < maxAttempts; attempt++ {
		time.Sleep(2 * time.Second)
		res, err := c.Get("https://jobs.example/status/" + id)
		if err != nil {
			return "", fmt.Errorf("checking status: %w", err)
		}
		var st status
		err = json.NewDecoder(res.Body).Decode(&st)
		res.Body.Close()
		if err != nil {
			return "", fmt.Errorf("parsing status: %w", err)
		}
		if st.Done {
			return st.Text, nil
		}
	}
	return "", errors.New("timed out")
}

// Submit sends the prompt again after an error: a retry.
func Submit(c *http.Client, body func() *http.Request) (*http.Response, error) {
	const maxTries = 4
	var lastErr error
	for attempt := 0; attempt < maxTries; attempt++ {
		res, err := c.Do(body())
		if err != nil {
			lastErr = err
			time.Sleep(2 * time.Second)
			continue
		}
		return res, nil
	}
	return nil, lastErr
}
