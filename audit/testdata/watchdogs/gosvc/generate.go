package gosvc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

const stallTries = 2

var client = anthropic.NewClient(option.WithMaxRetries(0))

func ask(ctx context.Context, prompt string) (*anthropic.Message, error) {
	return client.Messages.New(ctx, anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_5,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	})
}

// Generate gives each try five minutes; a try that runs out is abandoned
// and the answer generated again.
func Generate(ctx context.Context, prompt string) (*anthropic.Message, error) {
	var lastErr error
	for i := 0; i < stallTries; i++ {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		msg, err := ask(tctx, prompt)
		cancel()
		if err == nil {
			return msg, nil
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		lastErr = err
	}
	return nil, fmt.Errorf("generation stalled %d times: %w", stallTries, lastErr)
}

// Label is asked once more when the first try passes its deadline.
func Label(ctx context.Context, prompt string) (*anthropic.Message, error) {
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	msg, err := ask(tctx, prompt)
	cancel()
	if errors.Is(err, context.DeadlineExceeded) {
		rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
		defer rcancel()
		msg, err = ask(rctx, prompt)
	}
	return msg, err
}

// Score is a near miss: the deadline ends the call, nothing is sent again.
func Score(ctx context.Context, prompt string) (*anthropic.Message, error) {
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	msg, err := ask(tctx, prompt)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("scoring timed out: %w", err)
	}
	return msg, err
}
