package main

import (
	"errors"
	"math"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	cohere "github.com/cohere-ai/cohere-go/v2/client"
)

type asker struct {
	cfg     Config
	retries int
	llm     anthropic.Client
	rerank  *cohere.Client
}

type resend struct{ prompt string }

func newAsker(cfg Config) *asker {
	return &asker{cfg: cfg, llm: anthropic.NewClient(), rerank: cohere.NewClient()}
}

// onError decides, for a failed request, whether the UI loop sends it
// again: it returns the message that re-sends, or the error.
func (a *asker) onError(prompt string, err error) any {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode == 400 {
		return err
	}
	a.retries++
	if a.retries >= a.cfg.MaxRetries {
		return err
	}
	time.Sleep(time.Duration(100*math.Pow(2, float64(a.retries))) * time.Millisecond)
	return resend{prompt}
}

// progress counts rendered frames; it is no retry.
func (a *asker) progress(frames int) int {
	frames++
	if frames > 1000 {
		return 0
	}
	return frames
}
